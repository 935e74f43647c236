/**
 * Hostile repositories, written to temporary folders: each reproduces one way a repository used to
 * hang, crash or exhaust the tool (the hardening issue's fuzzing findings). Shared by the
 * regression tests and the hardening benchmark.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Fixture {
  readonly dir: string;
  cleanup(): void;
}

const KS_API = 'kustomize.toolkit.fluxcd.io/v1';

export function ks(name: string, path_: string, extra = ''): string {
  return `apiVersion: ${KS_API}
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: 10m
  path: ${path_}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
${extra}`;
}

/** A bootstrapped cluster (`clusters/prod`) whose `apps` Kustomization applies one ConfigMap. */
export const BASE: Record<string, string> = {
  'clusters/prod/flux-system/gotk-sync.yaml': `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  ref:
    branch: main
  url: https://github.com/example/fleet
---
${ks('flux-system', './clusters/prod')}`,
  'clusters/prod/apps.yaml': ks('apps', './apps'),
  'apps/app.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  a: b\n',
};

/** A hostile repository: its files, plus what only a real disk can hold (links, FIFOs). */
export interface Adversarial {
  readonly files: Record<string, string>;
  readonly prepare?: (dir: string) => void;
}

/** Runs `body` on the repository written to a temporary folder, removed afterwards whatever happens. */
export async function withFixture(repo: Adversarial, body: (dir: string) => Promise<void>): Promise<void> {
  const fixture = materialize(repo);
  try {
    await body(fixture.dir);
  } finally {
    fixture.cleanup();
  }
}

export function materialize(repo: Adversarial): Fixture {
  return writeRepo(repo.files, repo.prepare);
}

export function writeRepo(files: Record<string, string>, prepare?: (dir: string) => void): Fixture {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-adversarial-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  prepare?.(dir);
  return { dir: dir.split(path.sep).join('/'), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export const adversarial: Record<string, (size?: number) => Adversarial> = {
  /** `a -> .` and `up -> ..`: folder links looping back into the tree. */
  symlinkLoop: () =>
    ({ files: BASE, prepare: (dir: string) => {
      fs.symlinkSync('.', path.join(dir, 'apps/loop'));
      fs.symlinkSync('..', path.join(dir, 'clusters/prod/up'));
    } }),
  /** A manifest name linked to an endless device (it reached 12.8 GB before). */
  symlinkDevZero: () => ({ files: BASE, prepare: (dir: string) => fs.symlinkSync('/dev/zero', path.join(dir, 'apps/zero.yaml')) }),
  /** A link out of the workspace, and a broken one. */
  symlinkOutside: () =>
    ({ files: BASE, prepare: (dir: string) => {
      fs.symlinkSync('/etc/hostname', path.join(dir, 'apps/outside.yaml'));
      fs.symlinkSync('/etc', path.join(dir, 'apps/etc'));
      fs.symlinkSync('does-not-exist.yaml', path.join(dir, 'apps/broken.yaml'));
    } }),
  /** A FIFO named like a manifest: opening it for reading blocks until a writer comes. */
  fifo: () => ({ files: BASE, prepare: (dir: string) => execFileSync('mkfifo', [path.join(dir, 'apps/pipe.yaml')]) }),
  /** A `.sourceignore` glob that backtracks exponentially as a RegExp, next to a long file name. */
  sourceignoreBacktracking: () =>
    ({ files: {
      ...BASE,
      '.sourceignore': `${'*a'.repeat(16)}*b\n`,
      [`apps/${'a'.repeat(200)}.yaml`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: long\n  namespace: default\n',
    } }),
  /** Tens of thousands of aliases in one document (quadratic alias resolution). */
  manyAliases: (count = 20_000) =>
    ({ files: {
      ...BASE,
      'apps/aliases.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliases\ndata:\n  base: &a value\n  list:\n${'    - *a\n'.repeat(count)}`,
    } }),
  /** "Billion laughs": nine levels of ten aliases each. */
  aliasBomb: () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: lol', 'data:', '  l0: &l0 "lol"'];
    for (let i = 1; i <= 9; i++) lines.push(`  l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(', ')}]`);
    return { files: { ...BASE, 'apps/bomb.yaml': lines.join('\n') + '\n' } };
  },
  /** Aliases naming the node that contains them, in postBuild.substitute and HelmRelease values. */
  selfAlias: () =>
    ({ files: {
      ...BASE,
      'clusters/prod/apps.yaml': ks('apps', './apps', '  postBuild:\n    substitute: &s\n      name: app\n      again: *s\n'),
      'apps/release.yaml': `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: default
spec:
  interval: 10m
  chart:
    spec:
      chart: podinfo
      sourceRef:
        kind: HelmRepository
        name: podinfo
  values: &v
    replicas: 1
    nested: *v
`,
      'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n',
    } }),
  /** kustomization.yaml files each listing the next folder, `depth` deep. */
  kustomizeChain: (depth = 1000) => {
    const files: Record<string, string> = { ...BASE, 'apps/kustomization.yaml': 'resources:\n  - app.yaml\n  - ../chain/k0\n' };
    for (let i = 0; i < depth; i++) {
      files[`chain/k${i}/kustomization.yaml`] = i + 1 < depth ? `resources:\n  - cm.yaml\n  - ../k${i + 1}\n` : 'resources:\n  - cm.yaml\n';
      files[`chain/k${i}/cm.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\n  namespace: default\n`;
    }
    return { files };
  },
  /** Flux Kustomizations each applying the folder of the next, `depth` deep. */
  nestedKustomizations: (depth = 3000) => {
    const files: Record<string, string> = { ...BASE, 'apps/next.yaml': ks('n0', './nest/0') };
    for (let i = 0; i < depth; i++) files[`nest/${i}/ks.yaml`] = ks(`n${i + 1}`, `./nest/${i + 1}`);
    return { files };
  },
  /** `size` Kustomizations in one dependsOn ring. */
  dependsOnRing: (size = 2000) => {
    const docs: string[] = [];
    for (let i = 0; i < size; i++) docs.push(ks(`r${i}`, './apps', `  dependsOn:\n    - name: r${(i + 1) % size}\n`));
    return { files: { ...BASE, 'clusters/prod/ring.yaml': docs.join('---\n') } };
  },
  /** Each level's kustomization lists the next folder twice (as `d` and `./d`), `levels` deep. */
  doubledListing: (levels = 22) => {
    const files: Record<string, string> = { ...BASE, 'apps/kustomization.yaml': 'resources:\n  - app.yaml\n  - ../twice/0\n' };
    for (let i = 0; i < levels; i++) {
      const next = i + 1 < levels ? `  - ../${i + 1}\n  - ./../${i + 1}\n` : '';
      files[`twice/${i}/kustomization.yaml`] = `resources:\n  - cm.yaml\n${next}`;
      files[`twice/${i}/cm.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t${i}\n  namespace: default\n`;
    }
    return { files };
  },
  /** A file of a million empty documents (4 MB, under the size limit). */
  millionDocuments: (count = 1_000_000) => ({ files: { ...BASE, 'apps/empty.yaml': '---\n'.repeat(count) } }),
} satisfies Record<string, (size?: number) => Adversarial>;

/** The `apps` Kustomization's spec.path is an ancestor of its own file. */
export function ancestorPath(specPath: string): Adversarial {
  return { files: { ...BASE, 'clusters/prod/apps.yaml': ks('apps', specPath) } };
}
