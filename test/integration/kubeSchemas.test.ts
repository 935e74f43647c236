/**
 * The built-in kinds' schemas against the real API server: the bundle shipped in the product is
 * the one the test API server serves; every object the schema check flags as an error is one
 * server-side apply (as Flux applies, dry-run) refuses, every object it passes is accepted, and an
 * object whose only finding is an unknown field (a warning: kustomize-controller drops the field
 * when it reads the object into its Go type) is accepted once the field is dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { getTestCluster, kubeRequest } from '../cluster/harness';
import { kubeSchemaBundle } from '../../scripts/kube-schemas';
import { checkModel } from '../../src/core/checks/index';
import { memoryRepo } from '../unit/helpers';
import { ROOT_KS } from '../unit/schema/fixture';


test('the bundled built-in schemas are those the test API server serves', { timeout: 120_000 }, async () => {
  const cluster = await getTestCluster();
  const text = await kubeSchemaBundle(async (p) => {
    const res = await kubeRequest(cluster.kubeconfig, { path: p });
    assert.equal(res.status, 200, `GET ${p}`);
    return res.json();
  });
  const file = path.join(__dirname, '../../src/core/schema/kube.generated.json');
  assert.ok(fs.readFileSync(file, 'utf8') === text, 'kube.generated.json is stale: run node --import tsx scripts/kube-schemas.ts');
});

/** Each case: one object, and how our check flags it (an unknown field: `dropped`, with its path). */
const CASES: { name: string; yaml: string; flagged: boolean; dropped?: string[] }[] = [
  {
    name: 'a misspelt container field',
    flagged: true,
    dropped: ['spec', 'template', 'spec', 'containers', '0', 'imagePullPolicyy'],
    yaml: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: typo\n  namespace: default\nspec:\n  selector:\n    matchLabels: {app: a}\n  template:\n    metadata:\n      labels: {app: a}\n    spec:\n      containers:\n        - name: a\n          image: nginx\n          imagePullPolicyy: Always\n',
  },
  {
    name: 'replicas as a word',
    flagged: true,
    yaml: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: words\n  namespace: default\nspec:\n  replicas: two\n  selector:\n    matchLabels: {app: a}\n  template:\n    metadata:\n      labels: {app: a}\n    spec:\n      containers:\n        - name: a\n          image: nginx\n',
  },
  {
    name: 'a protocol outside the enum',
    flagged: true,
    yaml: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: proto\n  namespace: default\nspec:\n  ports:\n    - port: 80\n      protocol: tcp\n',
  },
  {
    name: 'a ConfigMap value that is not a string',
    flagged: true,
    yaml: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  namespace: default\ndata:\n  enabled: true\n',
  },
  {
    name: 'a RoleBinding without roleRef',
    flagged: true,
    yaml: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: noref\n  namespace: default\nsubjects:\n  - kind: ServiceAccount\n    name: app\n',
  },
  {
    name: 'int-or-string ports both ways',
    flagged: false,
    yaml: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: ports\n  namespace: default\nspec:\n  ports:\n    - name: http\n      port: 80\n      targetPort: http\n    - name: https\n      port: 443\n      targetPort: 8443\n',
  },
  {
    name: 'quantities as numbers and strings',
    flagged: false,
    yaml: 'apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: quota\n  namespace: default\nspec:\n  hard:\n    cpu: 0.5\n    memory: 1Gi\n    pods: 10\n',
  },
  {
    name: 'a complete Deployment with probes and a null timestamp',
    flagged: false,
    yaml: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: good\n  namespace: default\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: a}\n  strategy:\n    rollingUpdate:\n      maxSurge: 25%\n      maxUnavailable: 0\n  template:\n    metadata:\n      creationTimestamp: null\n      labels: {app: a}\n    spec:\n      containers:\n        - name: a\n          image: nginx\n          resources:\n            limits: {memory: 128Mi, cpu: 100m}\n          livenessProbe:\n            httpGet: {path: /, port: 8080}\n          env:\n            - name: A\n              value: "1"\n',
  },
];

test('what the schema check flags as an error, server-side apply refuses; what it passes, or only warns of a dropped field, is accepted', { timeout: 120_000 }, async () => {
  const cluster = await getTestCluster();
  for (const c of CASES) {
    const repo = memoryRepo({ 'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS, 'apps/object.yaml': c.yaml, 'apps/kustomization.yaml': 'resources:\n  - object.yaml\n' });
    const findings = checkModel(repo.model()).diagnostics.filter((d) => d.rule.startsWith('schema-'));
    assert.equal(findings.length > 0, c.flagged, `${c.name}: ${JSON.stringify(findings.map((f) => f.message))}`);
    if (c.flagged) assert.equal(findings.every((f) => f.severity === 'warning'), !!c.dropped, `${c.name}: ${JSON.stringify(findings.map((f) => f.severity))}`);
    const object = parseAllDocuments(c.yaml)[0].toJS();
    const plural = { Deployment: 'deployments', Service: 'services', ConfigMap: 'configmaps', RoleBinding: 'rolebindings', ResourceQuota: 'resourcequotas' }[object.kind as string]!;
    const base = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
    const res = await kubeRequest(cluster.kubeconfig, {
      path: `${base}/namespaces/default/${plural}/${object.metadata.name}?fieldManager=kustomize-controller&force=true&dryRun=All`,
      method: 'PATCH',
      body: object,
      contentType: 'application/apply-patch+yaml',
    });
    assert.equal(res.status >= 400, c.flagged, `${c.name}: the API server answered ${res.status} ${res.body.slice(0, 300)}`);
    if (!c.dropped) continue;
    // As kustomize-controller sends it: without the field its Go type lacks.
    const parent = c.dropped.slice(0, -1).reduce((o, k) => o[k], object);
    delete parent[c.dropped[c.dropped.length - 1]];
    const normalized = await kubeRequest(cluster.kubeconfig, {
      path: `${base}/namespaces/default/${plural}/${object.metadata.name}?fieldManager=kustomize-controller&force=true&dryRun=All`,
      method: 'PATCH',
      body: object,
      contentType: 'application/apply-patch+yaml',
    });
    assert.ok(normalized.status < 300, `${c.name} without the dropped field: ${normalized.body.slice(0, 300)}`);
  }
});
