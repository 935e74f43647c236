/**
 * What the product takes from the Kubernetes client library at run time (its types are imported
 * where used). Bundled on its own (dist/kube.js) and loaded by `kubeLibrary()` when a command first
 * reaches a cluster.
 */
export { KubeConfig } from '@kubernetes/client-node';
