/**
 * A Kubernetes object as JSON, as the API server sends and receives it. Loose on purpose: it is
 * read field by field, each read checked where it matters.
 */
export type KubeJson = Record<string, any>;
