/**
 * Hostile repositories that stay under every per-file and per-build limit but exhaust a whole
 * command: many large files, substitution that multiplies a variable, builds slow enough that a
 * few of them outlast any reasonable wait (issue 23, "Budgets per command").
 */
import { BASE, ks, type Adversarial } from './adversarial';

const configMap = (name: string, data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n${data}`;

export const adversarialBudgets = {
  /**
   * `count` files of `bytes` each (4.9 MB: under the 5 MB per-file limit), one short list item per
   * line: the densest YAML, so parsing multiplies its size most. Compresses to a few KiB in Git.
   */
  manyLargeFiles: (count = 30, bytes = 4.9e6): Adversarial => {
    const files: Record<string, string> = { ...BASE };
    const head = (i: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big${i}\n  namespace: default\ndata:\n  big: |\n`;
    for (let i = 0; i < count; i++) files[`apps/big/f${String(i).padStart(2, '0')}.yaml`] = head(i) + '    a\n'.repeat(Math.floor((bytes - head(i).length) / 6));
    return { files };
  },
  /**
   * `count` ConfigMaps of about `bytes` each whose data holds one short key per line: a value many
   * times its text's size in memory, however the YAML is read (a block scalar is not: it is one string).
   */
  manyKeyFiles: (count = 6, bytes = 4.9e6): Adversarial => {
    const files: Record<string, string> = { ...BASE };
    const head = (i: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys${i}\n  namespace: default\ndata:\n`;
    for (let i = 0; i < count; i++) {
      let body = head(i);
      for (let k = 0; body.length < bytes - 20; k++) body += `  k${k}: v\n`;
      files[`apps/keys/f${String(i).padStart(2, '0')}.yaml`] = body;
    }
    return { files };
  },
  /**
   * postBuild.substitute holds one `varBytes` variable, used `uses` times over `configMaps` small
   * ConfigMaps: a few KB of YAML that substitute to `varBytes × uses` (400 MB at the defaults).
   */
  substitutionAmplification: (uses = 400, varBytes = 1e6, configMaps = 8): Adversarial => {
    const perMap = Math.ceil(uses / configMaps);
    const files: Record<string, string> = {
      ...BASE,
      'clusters/prod/apps.yaml': ks('apps', './apps', `  postBuild:\n    substitute:\n      big: ${'x'.repeat(varBytes)}\n`),
    };
    for (let m = 0; m < configMaps; m++) {
      let data = '';
      for (let u = 0; u < perMap && m * perMap + u < uses; u++) data += `  k${u}: \${big}\n`;
      files[`apps/amp${m}.yaml`] = configMap(`amp${m}`, data);
    }
    return { files };
  },
  /**
   * `kustomizations` Flux Kustomizations over one folder of `resources` ConfigMaps with `patches`
   * JSON patches, each aimed at every ConfigMap: a small folder whose build applies
   * `resources × patches` patches.
   */
  slowBuild: (kustomizations = 5, resources = 100, patches = 100): Adversarial => {
    const files: Record<string, string> = { ...BASE };
    const names: string[] = [];
    for (let r = 0; r < resources; r++) {
      names.push(`c${r}.yaml`);
      files[`slow/c${r}.yaml`] = configMap(`c${r}`, '  a: b\n');
    }
    const patch = (p: number) => `  - target:\n      kind: ConfigMap\n    patch: '[{"op":"add","path":"/data/p${p}","value":"v"}]'\n`;
    files['slow/kustomization.yaml'] = `resources:\n${names.map((n) => `  - ${n}\n`).join('')}patches:\n${Array.from({ length: patches }, (_, p) => patch(p)).join('')}`;
    files['clusters/prod/slow.yaml'] = Array.from({ length: kustomizations }, (_, k) => ks(`slow${k}`, './slow', `  targetNamespace: ns${k}\n`)).join('---\n');
    return { files };
  },
} satisfies Record<string, (...size: number[]) => Adversarial>;
