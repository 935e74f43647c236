import { memoryHost, type WorkspaceHost } from '../../../src/core/workspace/host';
import { Engine } from '../../../src/engine/engine';
import type { EngineEvent } from '../../../src/engine/protocol';

/** A bootstrapped cluster: the flux-system GitRepository (of https://github.com/example/fleet.git) and Kustomization at ./clusters/prod. */
export const bootstrapSync = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: https://github.com/example/fleet.git
  ref:
    branch: main
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  path: ./clusters/prod
  sourceRef:
    kind: GitRepository
    name: flux-system
`;

/** A small Flux repository: bootstrap, one app Kustomization with a dependsOn typo, a chart, a .sourceignore. */
export function fluxRepo(cluster = 'prod'): Record<string, string> {
  return {
    [`clusters/${cluster}/flux-system/gotk-sync.yaml`]: [
      'apiVersion: source.toolkit.fluxcd.io/v1',
      'kind: GitRepository',
      'metadata:',
      '  name: flux-system',
      '  namespace: flux-system',
      'spec:',
      '  url: https://example.com/fleet.git',
      '---',
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata:',
      '  name: flux-system',
      '  namespace: flux-system',
      'spec:',
      `  path: ./clusters/${cluster}`,
      '  sourceRef:',
      '    kind: GitRepository',
      '    name: flux-system',
      '',
    ].join('\n'),
    [`clusters/${cluster}/apps.yaml`]: [
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata:',
      '  name: apps',
      '  namespace: flux-system',
      'spec:',
      '  path: ./apps',
      '  dependsOn:',
      '    - name: infra',
      '  sourceRef:',
      '    kind: GitRepository',
      '    name: flux-system',
      '---',
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata:',
      '  name: infrastructure',
      '  namespace: flux-system',
      'spec:',
      '  path: ./infra',
      '  sourceRef:',
      '    kind: GitRepository',
      '    name: flux-system',
      '',
    ].join('\n'),
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: "1"\n',
    'apps/release.yaml': [
      'apiVersion: helm.toolkit.fluxcd.io/v2',
      'kind: HelmRelease',
      'metadata:',
      '  name: podinfo',
      'spec:',
      '  chart:',
      '    spec:',
      '      chart: ./charts/podinfo',
      '      sourceRef:',
      '        kind: GitRepository',
      '        name: flux-system',
      '        namespace: flux-system',
      '',
    ].join('\n'),
    'infra/ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: infra\n',
    'charts/podinfo/Chart.yaml': 'apiVersion: v2\nname: podinfo\nversion: 1.0.0\n',
    'charts/podinfo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n',
    'docs/.keep': '',
    'docs/example.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: example\n',
    '.sourceignore': 'docs/\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/index.lock': '',
    'node_modules/pkg/x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dep\n',
  };
}

/** A host that counts file reads (every parse starts with one). */
export function countingHost(inner: WorkspaceHost): WorkspaceHost & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    readDir: (p) => inner.readDir(p),
    readFile: (p, maxBytes) => {
      reads.push(p);
      return inner.readFile(p, maxBytes);
    },
  };
}

/** An engine over memory folders (`{ '/a': files, '/b': files }`), indexed, events recorded. */
export function memoryEngine(folders: Record<string, Record<string, string>>): { engine: Engine; events: EngineEvent[]; host: ReturnType<typeof countingHost>; files: Map<string, string> } {
  const files = new Map<string, string>();
  for (const [root, rel] of Object.entries(folders)) for (const [p, text] of Object.entries(rel)) files.set(`${root}/${p}`, text);
  const hosts = Object.entries(folders).map(([root, rel]) => ({ root, host: memoryHost(root, rel) }));
  const host = countingHost({
    readFile: (p, maxBytes) => (files.has(p) ? files.get(p) : hosts.find((h) => p.startsWith(h.root + '/'))?.host.readFile(p, maxBytes)),
    readDir: (p) => hosts.find((h) => p === h.root || p.startsWith(h.root + '/'))?.host.readDir(p) ?? [],
  });
  const engine = new Engine({ host, debounceMs: 0 });
  const events: EngineEvent[] = [];
  engine.onEvent((e) => events.push(e));
  engine.open(Object.keys(folders));
  return { engine, events, host, files };
}
