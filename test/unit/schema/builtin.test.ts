/**
 * Built-in kinds judged by the OpenAPI of the Kubernetes release the test API server builds
 * (kube.generated.json): wrong types and enums, missing required fields (errors: the API server
 * refuses the object), and unknown fields, which kustomize-controller drops when it reads the
 * object into its Go type before applying (fluxcd/pkg/ssa normalize) — except a Role or
 * ClusterRole, sent as written, which server-side apply refuses (test/integration/kubeSchemas.test.ts
 * asks the real API server).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModel } from '../../../src/core/checks/index';
import { quickFixes } from '../../../src/core/fixes/index';
import { builtinSchema, KUBERNETES } from '../../../src/core/schema/kube';
import { requiredSnippet, schemaCompletion, schemaHover } from '../../../src/core/schema/assist';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { memoryRepo, runCliCaptured } from '../helpers';
import { ROOT_KS } from './fixture';


function repoWith(files: Record<string, string>) {
  return memoryRepo({ 'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS, ...files });
}

const schemaFindings = (files: Record<string, string>) =>
  checkModel(repoWith(files).model()).diagnostics.filter((d) => d.rule.startsWith('schema-'));

const short = (d: { rule: string; severity: string; file: string; range: { start: { line: number; character: number } } }) =>
  `${d.rule} ${d.severity} ${d.file.split('/').pop()}:${d.range.start.line + 1}:${d.range.start.character + 1}`;

const DEPLOYMENT = [
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  '  name: web',
  '  namespace: default',
  'spec:',
  '  replicas: two',
  '  selector:',
  '    matchLabels: {app: web}',
  '  template:',
  '    metadata:',
  '      labels: {app: web}',
  '    spec:',
  '      containers:',
  '        - name: web',
  '          image: nginx',
  '          imagePullPolicyy: Always',
  '          ports:',
  '            - containerPort: "80"',
  '              protocol: tcp',
  '',
].join('\n');

test('the bundle holds the built-in kinds of the pinned Kubernetes release, linked through their references', () => {
  assert.match(KUBERNETES, /^Kubernetes 1\.\d+$/);
  const deployment = builtinSchema('apps/v1/Deployment');
  const container = deployment?.properties?.spec?.properties?.template?.properties?.spec?.properties?.containers?.items;
  assert.ok(container?.properties?.imagePullPolicy, 'Deployment → PodTemplateSpec → PodSpec → Container is linked');
  assert.deepEqual(container.properties.imagePullPolicy.enum, ['Always', 'IfNotPresent', 'Never']);
  // A field keeps its own description where the type it refers to has another.
  assert.match(deployment!.properties!.spec!.description!, /desired behavior of the Deployment/);
  assert.ok(builtinSchema('v1/ConfigMap') && builtinSchema('networking.k8s.io/v1/Ingress') && builtinSchema('apiextensions.k8s.io/v1/CustomResourceDefinition'));
  assert.equal(builtinSchema('apps/v1/DeploymentList'), undefined);
  assert.equal(builtinSchema('extensions/v1beta1/Ingress'), undefined, 'a version the release does not serve has no schema');
  assert.equal(builtinSchema('v1/constructor'), undefined);
});

test('a Deployment: wrong types, an enum and a misspelt field, each at its node; an unknown field is dropped by Flux (a warning)', () => {
  const found = schemaFindings({ 'apps/deploy.yaml': DEPLOYMENT, 'apps/kustomization.yaml': 'resources:\n  - deploy.yaml\n' });
  assert.deepEqual(found.map(short), [
    'schema-invalid error deploy.yaml:7:13',
    'schema-unknown-field warning deploy.yaml:17:11',
    'schema-invalid error deploy.yaml:19:30',
    'schema-invalid error deploy.yaml:20:25',
  ]);
  assert.match(found[0].message, /spec\.replicas: the string "two" where the schema wants an integer; the API server rejects the object \(schema: Kubernetes 1\.\d+ Deployment v1\)/);
  assert.match(found[1].message, /containers\[0\]\.imagePullPolicyy is not a field of Deployment; kustomize-controller reads the object into its Kubernetes type before applying and drops the field, so the setting never takes effect\. Did you mean 'imagePullPolicy'\?/);
  assert.match(found[3].message, /"tcp" is not one of "SCTP", "TCP", "UDP"/);
});

test('the closest field is a quick fix that renames the key and keeps its value', () => {
  const repo = repoWith({ 'apps/deploy.yaml': DEPLOYMENT, 'apps/kustomization.yaml': 'resources:\n  - deploy.yaml\n' });
  const unknown = checkModel(repo.model()).diagnostics.find((d) => d.rule === 'schema-unknown-field')!;
  const fixes = quickFixes(unknown, repo.model());
  assert.equal(fixes[0].title, "Change to 'imagePullPolicy'");
  assert.equal(fixes[0].preferred, true);
  const [edit] = fixes[0].edits;
  assert.deepEqual([edit.range.start.line, edit.range.start.character, edit.range.end.character, edit.newText], [16, 10, 26, 'imagePullPolicy']);
});

test('what the API server accepts is not judged: int-or-string, quantities, nulls, substitutions, SOPS', () => {
  const ok = [
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: web',
    '  namespace: default',
    '  creationTimestamp: null',
    'spec:',
    '  type: ${SERVICE_TYPE:=ClusterIP}',
    '  ports:',
    '    - port: 80',
    '      targetPort: http',
    '    - port: 443',
    '      targetPort: 8443',
    '---',
    'apiVersion: v1',
    'kind: ResourceQuota',
    'metadata:',
    '  name: q',
    '  namespace: default',
    'spec:',
    '  hard:',
    '    cpu: 0.5',
    '    memory: 1Gi',
    '    pods: 10',
    '---',
    'apiVersion: v1',
    'kind: Secret',
    'metadata:',
    '  name: s',
    '  namespace: default',
    'stringData:',
    '  password: ENC[AES256_GCM,data:abc,iv:def,tag:ghi,type:str]',
    'sops:',
    '  age: []',
    '  version: 3.9.0',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: c',
    '  namespace: default',
    'data:',
    '  replicas: ${REPLICAS}',
    '',
  ].join('\n');
  assert.deepEqual(schemaFindings({ 'apps/all.yaml': ok, 'apps/kustomization.yaml': 'resources:\n  - all.yaml\n' }).map((d) => d.message), []);
});

test('a required field left out and a ConfigMap value that is not a string', () => {
  const bad = [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: c',
    '  namespace: default',
    'data:',
    '  enabled: true',
    '---',
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: RoleBinding',
    'metadata:',
    '  name: rb',
    '  namespace: default',
    'subjects:',
    '  - kind: ServiceAccount',
    '    name: app',
    '',
  ].join('\n');
  const found = schemaFindings({ 'apps/bad.yaml': bad, 'apps/kustomization.yaml': 'resources:\n  - bad.yaml\n' });
  assert.deepEqual(found.map(short), ['schema-invalid error bad.yaml:7:12', 'schema-invalid error bad.yaml:9:1']);
  assert.match(found[0].message, /data\.enabled: the boolean true where the schema wants a string/);
  assert.match(found[1].message, /RoleBinding default\/rb: \(top level\): required field 'roleRef' is missing/);
});

test('hover and completion in a Deployment come from the same built-in schema', () => {
  const typing = DEPLOYMENT.replace('          imagePullPolicyy: Always\n', '          \n');
  const model = repoWith({ 'apps/deploy.yaml': typing }).model();
  const hover = schemaHover(model, '/repo/apps/deploy.yaml', typing.indexOf('replicas') + 2);
  assert.match(hover!.markdown, /^\*\*replicas\*\* · integer/);
  assert.match(hover!.markdown, /Number of desired pods/);
  assert.match(hover!.markdown, /Schema: Kubernetes 1\\\.\d+/);
  const inContainer = schemaCompletion(model, '/repo/apps/deploy.yaml', typing.indexOf('image: nginx\n') + 'image: nginx\n'.length + 10);
  const labels = inContainer.map((c) => c.label);
  assert.ok(labels.includes('imagePullPolicy') && labels.includes('livenessProbe') && !labels.includes('image'), labels.join(','));
  const policy = schemaCompletion(memoryRepo({ 'apps/deploy.yaml': DEPLOYMENT.replace('imagePullPolicyy: Always', 'imagePullPolicy: ') }).model(), '/repo/apps/deploy.yaml', DEPLOYMENT.indexOf('imagePullPolicyy') + 'imagePullPolicy: '.length);
  assert.deepEqual(policy.map((c) => c.label), ['Always', 'IfNotPresent', 'Never']);
});

test('a field with required fields completes as a snippet writing them out, enum values as a choice', () => {
  const spec = builtinSchema('apps/v1/Deployment')!.properties!.spec!;
  assert.equal(requiredSnippet('containers', spec.properties!.template!.properties!.spec!.properties!.containers), 'containers:\n  - name: $1');
  assert.equal(requiredSnippet('roleRef', builtinSchema('rbac.authorization.k8s.io/v1/RoleBinding')!.properties!.roleRef!), 'roleRef:\n  apiGroup: $1\n  kind: $2\n  name: $3');
  assert.equal(requiredSnippet('spec', spec), 'spec:\n  selector:\n    $1\n  template:\n    $2');
  assert.equal(requiredSnippet('replicas', spec.properties!.replicas!), undefined);
  // Names and enum values from a CRD are repository text: snippet syntax in them is escaped.
  const crd = { type: 'object', required: ['a$b', 'mode'], properties: { 'a$b': { type: 'string' }, mode: { type: 'string', enum: ['x,y', 'z|}'] } } } as const;
  assert.equal(requiredSnippet('weird', crd as never), 'weird:\n  a\\$b: $1\n  mode: ${2|x\\,y,z\\|\\}|}');
});

test('check judges a built-in object after post-build substitution: a known value as substituted, an unknown one not at all', { timeout: 300_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-schema-subst-'));
  try {
    const apps = (replicas: string) =>
      `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      REPLICAS: "${replicas}"\n      ENABLED: "true"\n`;
    const deployment = DEPLOYMENT.replace('replicas: two', 'replicas: ${REPLICAS}')
      .replace('          imagePullPolicyy: Always\n', '')
      .replace('containerPort: "80"', 'containerPort: ${PORT:=8080}')
      .replace('protocol: tcp', 'protocol: TCP')
      .replace('    spec:\n      containers:', '    spec:\n      automountServiceAccountToken: ${ENABLED}\n      containers:');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    write('clusters/prod/flux-system/gotk-sync.yaml', ROOT_KS.replace('./apps', './clusters/prod'));
    write('clusters/prod/apps.yaml', apps('3'));
    write('apps/deploy.yaml', deployment);
    write('apps/kustomization.yaml', 'resources:\n  - deploy.yaml\n');
    const good = await runCliCaptured(['check', dir], dir);
    assert.equal(good.code, 0, good.stdout + good.stderr);
    write('clusters/prod/apps.yaml', apps('three'));
    const bad = await runCliCaptured(['check', dir], dir);
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /apps\/deploy\.yaml:7:\d+: error \[schema-invalid\] Deployment default\/web: spec\.replicas: the string "three" where the schema wants an integer/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an API version its server does not serve: a removed Kubernetes version (by the cluster pinned), a version no known CRD serves', () => {
  const pdb = 'apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\n  namespace: default\nspec:\n  minAvailable: 1\n';
  const crd = [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    '  name: widgets.example.com',
    'spec:',
    '  group: example.com',
    '  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}',
    '  scope: Namespaced',
    '  versions:',
    '    - name: v1',
    '      served: true',
    '      storage: true',
    '      schema:',
    '        openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}',
    '    - name: v1alpha1',
    '      served: false',
    '      storage: false',
    '',
  ].join('\n');
  const widget = (version: string) => `apiVersion: example.com/${version}\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\nspec:\n  size: 1\n`;
  const unserved = (files: Record<string, string>) =>
    checkModel(repoWith({ 'apps/kustomization.yaml': `resources:\n${Object.keys(files).map((f) => `  - ${f.slice(5)}\n`).join('')}`, ...files }).model())
      .diagnostics.filter((d) => d.rule === 'api-version-unserved')
      .map((d) => `${d.file.split('/').pop()}:${d.range.start.line + 1} ${d.message}`);
  const found = unserved({ 'apps/pdb.yaml': pdb, 'apps/crd.yaml': crd, 'apps/a.yaml': widget('v1'), 'apps/b.yaml': widget('v1alpha1'), 'apps/c.yaml': widget('v2') });
  assert.equal(found.length, 3, found.join('\n'));
  assert.match(found.find((f) => f.startsWith('pdb.yaml:1'))!, /PodDisruptionBudget default\/web: policy\/v1beta1 is not served since Kubernetes 1\.25: use policy\/v1\. This cluster runs Kubernetes 1\.33\.0 \(no version pinned/);
  assert.match(found.find((f) => f.startsWith('b.yaml:1'))!, /Widget default\/w: example\.com\/v1alpha1 is a version no known CRD of Widget serves \(example\.com\/v1; from CRD widgets\.example\.com \(apps\/crd\.yaml\)\)/);
  assert.ok(found.some((f) => f.startsWith('c.yaml:1')));
  // A cluster pinned before the removal still serves it.
  const talos = 'clusterName: home\nkubernetesVersion: v1.24.3\n';
  const old = checkModel(repoWith({ 'talos/talconfig.yaml': talos, 'apps/kustomization.yaml': 'resources:\n  - pdb.yaml\n', 'apps/pdb.yaml': pdb }).model()).diagnostics.filter((d) => d.rule === 'api-version-unserved');
  assert.deepEqual(old, []);
});

test("a Role's unknown field is an error (sent as written); on a cluster pinned to a newer Kubernetes than the schema, a warning that says why", () => {
  const role = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n  namespace: default\nrules:\n  - apiGroups: [""]\n    resources: [pods]\n    verbs: [get]\n    verb: [list]\n';
  const roleFindings = schemaFindings({ 'apps/role.yaml': role, 'apps/kustomization.yaml': 'resources:\n  - role.yaml\n' });
  assert.deepEqual(roleFindings.map(short), ['schema-unknown-field error role.yaml:10:5']);
  assert.match(roleFindings[0].message, /rules\[0\]\.verb is not a field of Role; server-side apply rejects the object \("field not declared in schema": kustomize-controller sends a Role as written\)\. Did you mean 'verbs'\?/);
  const files = { 'talos/talconfig.yaml': 'clusterName: home\nkubernetesVersion: v1.36.2\n', 'apps/role.yaml': role, 'apps/kustomization.yaml': 'resources:\n  - role.yaml\n' };
  const unknown = schemaFindings(files).find((d) => d.rule === 'schema-unknown-field')!;
  assert.equal(unknown.severity, 'warning');
  assert.match(unknown.message, /This cluster runs Kubernetes 1\.36\.2 \(pinned in talos\/talconfig\.yaml:2\), newer than the schema: if the field was added since, it is accepted\./);
  const typo = { ...files, 'apps/role.yaml': role.replace('verbs: [get]', 'verbs: get') };
  assert.ok(schemaFindings(typo).some((d) => d.rule === 'schema-invalid' && d.severity === 'error'), 'a wrong type stays an error');
});

test('a removed version that came back for new kinds is not unserved for them (MutatingAdmissionPolicy v1beta1)', () => {
  const map = 'apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicy\nmetadata:\n  name: jitter\nspec:\n  failurePolicy: Fail\n';
  const hook = 'apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: old\nwebhooks: []\n';
  const found = checkModel(repoWith({ 'apps/kustomization.yaml': 'resources:\n  - map.yaml\n  - hook.yaml\n', 'apps/map.yaml': map, 'apps/hook.yaml': hook }).model()).diagnostics.filter((d) => d.rule === 'api-version-unserved');
  assert.deepEqual(found.map((d) => d.file.split('/').pop()), ['hook.yaml']);
});

test("a component's schema mistake is one finding however many objects it is rendered into", () => {
  const ks = (name: string) =>
    `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./shared\n  prune: true\n  targetNamespace: ${name}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
  const pvc = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n  storageClasName: fast\n';
  const found = schemaFindings({ 'apps/a.yaml': ks('a'), 'apps/b.yaml': ks('b'), 'apps/kustomization.yaml': 'resources:\n  - a.yaml\n  - b.yaml\n', 'shared/pvc.yaml': pvc });
  assert.equal(found.length, 1, found.map((d) => d.message).join('\n'));
  assert.match(found[0].message, /PersistentVolumeClaim a\/data: spec\.storageClasName is not a field[^]*\nAlso in 1 other place\.$/);
});
