/**
 * Hostile repositories whose attack is in what the tool prints: names, file names and values
 * holding terminal escapes, line breaks, GitHub workflow commands, YAML, Markdown, or Secret values
 * copied where masking did not look. Shared by the output regression tests.
 */
import { BASE, ks, type Adversarial } from './adversarial';

/** A `::` workflow command and a fake green summary behind a line break, with ESC, NUL, bidi and C1 (CSI) controls. */
export const FORGED = '\n::stop-commands::pwned\n0 error(s), 0 warning(s), 0 info\u001b[2J\u0000\u202e\u009b31m';

/** A file name and a value that render an image (fetched from the network) once they leave a code span or get no escaping. */
export const IMAGE = '` ![p](https://attacker.example/p.png) `';

/** YAML a line break in a file name adds to `build`'s `# Source:` comment: a privileged Pod. */
const POD_IN_NAME = 'x\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: evil, namespace: default}\nspec: {containers: [{name: c, image: busybox, securityContext: {privileged: true}}]}\n#.yaml';

/** A Secret's value: it must never be printed. */
export const SECRET = 'hunter2-secret-value';

/** YAML double-quoted text (escapes for every control character, so the file parses). */
function q(text: string): string {
  return JSON.stringify(text);
}

const secretYaml = (extra = '') =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: default\n${extra}stringData:\n  password: ${SECRET}\n`;

export const adversarialOutput = {
  /**
   * Names and file names that forge lines: a dependsOn name and an unapplied Kustomization's name
   * holding FORGED, a manifest named like a workflow command, a file name with ESC that does not
   * parse, a name ending in a backslash (which kept Graphviz < 8 from closing the DOT string).
   */
  forgedLines: (): Adversarial => ({
    files: {
      ...BASE,
      'clusters/prod/apps.yaml': ks('apps', './apps', `  dependsOn:\n    - name: ${q(`x${FORGED}`)}\n    - name: ${q('ends-in-backslash\\')}\n`),
      'apps/::error title=forged::0 error(s).yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n',
      'unapplied/\u001b[32mks.yaml': `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${q(`z${FORGED}`)}\n  namespace: flux-system\nspec:\n  path: ./x\n`,
    },
  }),
  /** A manifest whose file name ends `build`'s `# Source:` comment and adds a privileged Pod. */
  sourceCommentInjection: (): Adversarial => ({
    files: { ...BASE, [`apps/${POD_IN_NAME}`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: injected\n  namespace: default\n' },
  }),
  /** ConfigMap values `build` prints: a block scalar line that is a workflow command, bidi controls (kustomize refuses C0 and C1). */
  forgedValues: (): Adversarial => ({
    files: {
      ...BASE,
      'apps/app.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  script: ${q('echo ok\n::stop-commands::pwned\n')}\n  shown: ${q('a\u202eb\u2066c')}\n`,
    },
  }),
  /** Markdown in a substituted value and in a Kustomization's path, both shown in code spans. */
  markdownInjection: (): Adversarial => ({
    files: {
      ...BASE,
      'clusters/prod/apps.yaml': ks('apps', './apps', `  postBuild:\n    substitute:\n      tag: ${q(`x${IMAGE}y`)}\n`),
      'clusters/prod/evil.yaml': ks('evil', q(`./apps${IMAGE}x\n\n![q](https://attacker.example/q.png)`)),
      'apps/app.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  tag: ${tag}\n',
    },
  }),
  /** A Secret whose last-applied-configuration annotation repeats its value. */
  lastApplied: (): Adversarial => ({
    files: {
      ...BASE,
      'apps/kustomization.yaml': 'resources:\n  - app.yaml\n  - secret.yaml\n',
      'apps/secret.yaml': secretYaml(
        `  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: ${q(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', stringData: { password: SECRET } }))}\n`,
      ),
    },
  }),
  /** kustomize replacements copying a Secret value into a ConfigMap, whole and as part of a URL. */
  replacementCopy: (): Adversarial => ({
    files: {
      ...BASE,
      'apps/kustomization.yaml': `resources:
  - app.yaml
  - secret.yaml
replacements:
  - source: {kind: Secret, name: db, fieldPath: stringData.password}
    targets:
      - select: {kind: ConfigMap, name: app}
        fieldPaths: [data.a]
      - select: {kind: ConfigMap, name: app}
        fieldPaths: [data.url]
        options: {delimiter: '@', index: 0}
`,
      'apps/app.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  a: b\n  url: user@db.example.com\n  role: administrator\n',
      'apps/secret.yaml': secretYaml(),
    },
  }),
  /** A secretGenerator literal without `=`: kustomize fails, quoting it. */
  malformedLiteral: (): Adversarial => ({
    files: { ...BASE, 'apps/kustomization.yaml': `resources:\n  - app.yaml\nsecretGenerator:\n  - name: s\n    literals:\n      - ${SECRET}\n` },
  }),
} satisfies Record<string, () => Adversarial>;
