/** The cluster root the schema tests apply `./apps` from (a bootstrap gotk-sync.yaml's Kustomization). */
export const ROOT_KS = `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
