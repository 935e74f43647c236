export * from './repo';
export * from './model/index';
export * from './yaml/document';
export * from './yaml/lines';
export * from './workspace/workspace';
export * from './workspace/host';
