export * from '../kinds';
export * from './objects';
export * from './graph';
export * from './sources';
export * from './view';
export * from './expand';
