export * from './parse';
export * from './evaluate';
export * from './scan';
export * from './resolve';
export * from './describe';
