/**
 * The per-cluster graph of a repository: the model's types (`types.ts`) and how it is built
 * (`builder.ts`, with per-node rules in `nodes.ts`).
 */
export * from './types';
export { buildModel, ModelBuilder } from './builder';
