export * from './types';
export { buildDependencyGraph, graphNodeId, type GraphOptions } from './build';
export { graphNodesOf } from './select';
export { toDot } from './dot';
export { toMermaid } from './mermaid';
