/**
 * Hostile repositories whose cost used to grow with the square of their size (or past the call
 * stack): long runs in repository text that a backtracking regex scans again from every position,
 * per-item scans over thousands of findings or ignore rules, deep nesting and alias lists. Shared
 * by the regression tests and the hardening benchmark, like `adversarial`.
 */
import { BASE, ks, type Adversarial } from './adversarial';

/** Half a megabyte: well under the file size limit, enough for a quadratic scan to take hours. */
const LONG = 500_000;

const HELM_API = 'helm.toolkit.fluxcd.io/v2';

/** A GitRepository `spec.url`, a `.sourceignore` line, a document header and a chart name: runs that end before the value does. */
export const adversarialLinear = {
  /** A GitRepository whose url has a long run of slashes before its last character, in a Git checkout (URLs are compared with its remote). */
  gitUrlSlashes: (size = LONG) =>
    ({ files: {
      ...BASE,
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/config': '[remote "origin"]\n\turl = https://github.com/example/fleet.git\n',
      'apps/repo.yaml': `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: slashes
  namespace: flux-system
spec:
  interval: 1m
  ref:
    branch: main
  url: https://github.com/example/${'/'.repeat(size)}x
---
${ks('slashes', './apps', '').replace('name: flux-system\n', 'name: slashes\n')}`,
    } }),
  /** A `.sourceignore` line of blanks with one character after them. */
  sourceignoreBlanks: (size = LONG) => ({ files: { ...BASE, '.sourceignore': `a${' '.repeat(size)}b\n` } }),
  /** `metadata.name` followed by a long run of blanks before the line ends. */
  headerBlanks: (size = LONG) =>
    ({ files: { ...BASE, 'apps/blanks.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blanks${' '.repeat(size)}x\n  namespace: default\n` } }),
  /** A HelmRelease whose chart name has a long run of slashes before its last character. */
  chartSlashes: (size = LONG) =>
    ({ files: {
      ...BASE,
      'apps/release.yaml': `apiVersion: ${HELM_API}
kind: HelmRelease
metadata:
  name: slashes
  namespace: default
spec:
  interval: 10m
  chart:
    spec:
      chart: podinfo${'/'.repeat(size)}x
      sourceRef:
        kind: HelmRepository
        name: podinfo
`,
    } }),
  /** One Kustomization with `count` dependsOn entries that name nothing. */
  missingDependsOn: (count = 50_000) => {
    const entries = Array.from({ length: count }, (_, i) => `    - name: missing-${i}\n`).join('');
    return { files: { ...BASE, 'clusters/prod/apps.yaml': ks('apps', './apps', `  dependsOn:\n${entries}`) } };
  },
  /** `count` Kustomizations, each depending on one that does not exist (every name is a near miss of the others). */
  manyMissingDependsOn: (count = 20_000) => {
    const files: Record<string, string> = { ...BASE };
    for (let i = 0; i < count; i += 1000) {
      const docs = Array.from({ length: Math.min(1000, count - i) }, (_, j) => ks(`app-${i + j}`, './apps', `  dependsOn:\n    - name: gone-${i + j}\n`));
      files[`clusters/prod/many-${i / 1000}.yaml`] = docs.join('---\n');
    }
    return { files };
  },
  /** A `.sourceignore` of `rules` lines (names, extensions, paths, a few globs) over `files` manifests. */
  sourceignoreLarge: (rules = 40_000, files = 20_000) => {
    const out: Record<string, string> = { ...BASE };
    const lines: string[] = [];
    for (let i = 0; i < rules; i++) {
      const kind = i % 4;
      if (kind === 0) lines.push(`ignored-${i}.yaml`);
      else if (kind === 1) lines.push(`*.ext${i}`);
      else if (kind === 2) lines.push(`/many/d${i}/`);
      else lines.push(i % 400 === 3 ? `many/**/x${i}-*.yaml` : `!kept-${i}.yaml`);
    }
    // The last rule ignores every odd file; the rules before decide nothing, but must all be asked.
    lines.push('many/**/f*[13579].yaml');
    out['.sourceignore'] = lines.join('\n') + '\n';
    for (let i = 0; i < files; i++) {
      out[`many/d${i % 100}x/f${i}.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f${i}\n  namespace: default\n`;
    }
    out['apps/kustomization.yaml'] = 'resources:\n  - app.yaml\n';
    return { files: out };
  },
  /** `${a:=${a:=…}}` nested `depth` deep in a ConfigMap the `apps` Kustomization substitutes. */
  nestedDefaults: (depth = 2000) =>
    ({ files: {
      ...BASE,
      'clusters/prod/apps.yaml': ks('apps', './apps', '  postBuild:\n    substitute:\n      b: x\n'),
      'apps/nested.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nested\n  namespace: default\ndata:\n  v: "${'${a:='.repeat(depth)}x${'}'.repeat(depth)}"\n  w: \${missing^^}\n`,
    } }),
  /** `count` anchors, then one flow list of `count` aliases to them (2.5 MB at 100,000). */
  anchorsAndAliases: (count = 100_000) => {
    const anchors = Array.from({ length: count }, (_, i) => `  k${i}: &a${i} v\n`).join('');
    const aliases = Array.from({ length: count }, (_, i) => `*a${i}`).join(', ');
    return { files: { ...BASE, 'apps/anchors.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchors\n  namespace: default\ndata:\n${anchors}  list: [${aliases}]\n` } };
  },
} satisfies Record<string, (...sizes: number[]) => Adversarial>;
