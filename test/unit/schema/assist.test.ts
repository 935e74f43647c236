/** Hover and completion from the schema the cluster serves for the document. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaCompletion, schemaHover } from '../../../src/core/schema/assist';
import { memoryRepo } from '../helpers';

const HR = [
  'apiVersion: helm.toolkit.fluxcd.io/v2',
  'kind: HelmRelease',
  'metadata:',
  '  name: podinfo',
  'spec:',
  '  interval: 10m',
  '  chartRef:',
  '    kind: OCIRepository',
  '    name: podinfo',
  '  upgrade:',
  '    strategy:',
  '      name: ',
  '',
].join('\n');

const at = (text: string, marker: string, delta = 0) => text.indexOf(marker) + delta;

test('hover on a Flux field: its type, whether required, the CRD description and the schema it comes from', () => {
  const model = memoryRepo({ 'apps/hr.yaml': HR }).model();
  const hover = schemaHover(model, '/repo/apps/hr.yaml', at(HR, 'interval') + 2);
  assert.ok(hover);
  assert.match(hover.markdown, /^\*\*interval\*\* · string · required/);
  assert.match(hover.markdown, /Interval at which to reconcile the Helm release/);
  assert.match(hover.markdown, /Schema: Flux 2\\\.9/);
  assert.equal(HR.slice(hover.start, hover.end), 'interval');
  // On the value of an enum field: its allowed values.
  const kind = schemaHover(model, '/repo/apps/hr.yaml', at(HR, 'OCIRepository') + 1);
  assert.match(kind!.markdown, /One of: `"OCIRepository"`, `"HelmChart"`, `"ExternalArtifact"`/);
  // metadata is the API server's, and a ConfigMap has no schema here.
  assert.equal(schemaHover(model, '/repo/apps/hr.yaml', at(HR, 'podinfo') + 1), undefined);
});

test('completion: the fields of the mapping at the cursor not written yet, required first; enum values after a key', () => {
  const typing = HR.replace('      name: \n', '      name: RetryOnFailure\n    \n');
  const model = memoryRepo({ 'apps/hr.yaml': typing }).model();
  const inUpgrade = schemaCompletion(model, '/repo/apps/hr.yaml', at(typing, 'RetryOnFailure\n') + 'RetryOnFailure\n'.length + 4);
  const labels = inUpgrade.map((c) => c.label);
  assert.ok(labels.includes('remediation') && labels.includes('timeout') && labels.includes('crds'), labels.join(','));
  assert.ok(!labels.includes('strategy'), 'strategy is written already');
  assert.ok(!labels.includes('interval'), 'the fields of spec are not offered inside spec.upgrade');
  const inSpec = schemaCompletion(model, '/repo/apps/hr.yaml', at(typing, '  chartRef:', 2));
  assert.ok(!inSpec.some((c) => c.label === 'interval' || c.label === 'chartRef'));
  assert.ok(inSpec.some((c) => c.label === 'install' && c.insertText === 'install:\n'));
  const values = schemaCompletion(model, '/repo/apps/hr.yaml', at(HR, '      name: ') + '      name: '.length);
  assert.deepEqual(
    values.map((v) => v.label),
    ['RemediateOnFailure', 'RetryOnFailure'],
  );
  const spec = memoryRepo({ 'apps/hr.yaml': HR.replace('spec:\n  interval: 10m\n', 'spec:\n  \n') }).model();
  const top = schemaCompletion(spec, '/repo/apps/hr.yaml', at(HR, 'spec:\n') + 'spec:\n'.length + 2);
  assert.equal(top[0].label, 'interval');
  assert.equal(top[0].required, true);
});

test("completion after a Flux reference's `name: `: the objects of the right kind in the document's clusters, its namespace first", () => {
  const ks = (name: string, ns: string, extra = '') =>
    `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  interval: 10m\n  path: ./${name}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n${extra}`;
  const apps = ks('apps', 'flux-system', '  dependsOn:\n    - name: \n');
  const files = {
    'clusters/prod/flux-system/gotk-sync.yaml': `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: https://example.com/fleet.git\n  ref:\n    branch: main\n---\n${ks('flux-system', 'flux-system').replace('./flux-system', './clusters/prod')}`,
    'clusters/prod/apps.yaml': apps,
    'clusters/prod/infra.yaml': `${ks('infra', 'flux-system')}---\n${ks('tenant', 'team-a')}---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n`,
  };
  const model = memoryRepo(files).model();
  const offset = at(apps, '    - name: ') + '    - name: '.length;
  const names = schemaCompletion(model, '/repo/clusters/prod/apps.yaml', offset);
  assert.deepEqual(names.map((c) => `${c.label} (${c.detail})`), [
    'flux-system (Kustomization)',
    'infra (Kustomization)',
    'tenant (Kustomization in namespace team-a (add namespace: team-a))',
  ]);
  // A sourceRef's name: sources of the kind written beside it.
  const source = schemaCompletion(model, '/repo/clusters/prod/apps.yaml', at(apps, '    name: flux-system') + '    name: '.length);
  assert.deepEqual(source.map((c) => c.label), ['flux-system']);
});
