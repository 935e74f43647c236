export * from './types';
export { buildDependencyGraph, type GraphOptions } from './build';
export { toDot } from './dot';
export { toMermaid } from './mermaid';
