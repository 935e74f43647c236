/** The cluster root the schema tests apply `./apps` from (a bootstrap gotk-sync.yaml's Kustomization). */
export const ROOT_KS = `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;

/** A Widget CRD whose `spec.size` has this maximum (`extra`: another line under its properties). */
export const crd = (maximum: number, extra = '') =>
  [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    '  name: widgets.example.com',
    'spec:',
    '  group: example.com',
    '  names: {kind: Widget, plural: widgets}',
    '  scope: Namespaced',
    '  versions:',
    '    - name: v1',
    '      served: true',
    '      storage: true',
    '      schema:',
    '        openAPIV3Schema:',
    '          type: object',
    '          properties:',
    '            spec:',
    '              type: object',
    '              properties:',
    `                size: {type: integer, maximum: ${maximum}}`,
    extra,
    '',
  ].join('\n');
export const widget = (size: number) => `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\nspec:\n  size: ${size}\n`;
export const configMap = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  k: ${v}\n`;
