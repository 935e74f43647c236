import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { diskHost } from '../../../src/node/fsHost';
import {
  childrenOf,
  fluxContextValue,
  GROUP_CLUSTER_ONLY_LABEL,
  GROUP_UNAPPLIED_LABEL,
  pathsTo,
  present,
  rootNodes,
  type LiveLookup,
  type TreeNode,
} from '../../../src/core/tree/viewModel';
import type { RepoModel } from '../../../src/core/model/graph';

const corpora = path.resolve(__dirname, '../../../../shared/corpora').split(path.sep).join('/');

function corpus(name: string): RepoModel {
  return new Repo(`${corpora}/${name}`, diskHost).model();
}

/** `label [kind]` of each node down to Kustomization/HelmRelease/source level, skipping resource groups. */
function outline(model: RepoModel, nodes: TreeNode[], live?: LiveLookup): unknown[] {
  return nodes.map((n) => {
    const p = present(n, model, live);
    const kids = n.type === 'resources' ? [] : childrenOf(n);
    return kids.length ? { [p.label]: outline(model, kids, live) } : p.label;
  });
}

test('flux2-kustomize-helm-example: clusters, Kustomizations, HelmReleases and sources in applies order', () => {
  const model = corpus('flux2-kustomize-helm-example');
  const expectedCluster = [
    {
      'flux-system': [
        { apps: ['podinfo', 'podinfo', '1 resource'] },
        { 'infra-controllers': ['cert-manager', 'envoy-gateway', 'cert-manager', 'gateway-helm', '2 resources'] },
        { 'infra-configs': ['3 resources'] },
        'flux-system',
        'flux-system',
      ],
    },
  ];
  assert.deepEqual(outline(model, rootNodes(model)), [{ production: expectedCluster }, { staging: expectedCluster }]);
});

test('flux2-kustomize-helm-example: kinds, descriptions and click targets', () => {
  const model = corpus('flux2-kustomize-helm-example');
  const [production] = rootNodes(model);
  const [root] = childrenOf(production);
  const [apps, controllers] = childrenOf(root);
  const appsP = present(apps, model);
  assert.equal(appsP.contextValue, 'flux:Kustomization');
  assert.equal(appsP.description, 'ExternalArtifact/apps · ./production');
  assert.equal(appsP.collapsible, 'collapsed');
  assert.equal(appsP.location?.file, `${corpora}/flux2-kustomize-helm-example/clusters/production/apps.yaml`);
  assert.deepEqual(appsP.location?.range.start, { line: 1, character: 0 });
  assert.match(appsP.tooltip ?? '', /dependsOn: flux\\-system\/infra\\-configs/);
  const [hr, repo, resources] = childrenOf(apps);
  const hrP = present(hr, model);
  assert.equal(hrP.contextValue, 'flux:HelmRelease');
  assert.equal(hrP.description, 'podinfo · HelmRepository/podinfo');
  assert.match(hrP.tooltip ?? '', /Release name: podinfo/);
  assert.equal(present(repo, model).contextValue, 'flux:source:HelmRepository');
  assert.equal(resources.type, 'resources');
  assert.deepEqual(childrenOf(resources).map((n) => present(n, model).description), ['Namespace']);
  const controllerKids = childrenOf(controllers).map((n) => present(n, model));
  assert.deepEqual(
    controllerKids.map((p) => p.contextValue),
    ['flux:HelmRelease', 'flux:HelmRelease', 'flux:source:OCIRepository', 'flux:source:OCIRepository', 'group:resources'],
  );
  assert.deepEqual(controllerKids.slice(0, 2).map((p) => p.location?.file.split('/').pop()), ['cert-manager.yaml', 'envoy-gateway.yaml']);
  const rootP = present(root, model);
  assert.equal(rootP.collapsible, 'expanded');
  assert.equal(rootP.description, 'GitRepository/flux-system · ./clusters/production');
});

test('ids are unique across the whole tree and stable across model rebuilds', () => {
  const repo = new Repo(`${corpora}/flux2-kustomize-helm-example`, diskHost);
  const collect = (model: RepoModel) => {
    const ids: string[] = [];
    const walk = (nodes: TreeNode[]) => nodes.forEach((n) => (ids.push(n.id), walk(childrenOf(n))));
    walk(rootNodes(model));
    return ids;
  };
  const first = collect(repo.model());
  assert.equal(new Set(first).size, first.length);
  const file = `${corpora}/flux2-kustomize-helm-example/clusters/production/apps.yaml`;
  repo.setBuffer(file, repo.workspace.readText(file)! + '\n# edited\n');
  const second = collect(repo.model());
  assert.deepEqual(second, first);
});

test('unapplied group lists Flux objects nothing applies', () => {
  const root = '/repo';
  const model = new Repo(
    root,
    memoryHost(root, {
      'clusters/a/flux-system/gotk-sync.yaml': [
        'apiVersion: kustomize.toolkit.fluxcd.io/v1',
        'kind: Kustomization',
        'metadata: {name: flux-system, namespace: flux-system}',
        'spec: {path: ./clusters/a, sourceRef: {kind: GitRepository, name: flux-system}}',
      ].join('\n'),
      'stray/hr.yaml': 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: lost, namespace: x}\nspec: {}\n',
    }),
  ).model();
  const nodes = rootNodes(model);
  const group = nodes[nodes.length - 1];
  assert.equal(present(group, model).label, GROUP_UNAPPLIED_LABEL);
  const [lost] = childrenOf(group);
  const p = present(lost, model);
  assert.equal(p.label, 'lost');
  assert.equal(p.contextValue, 'flux:HelmRelease:unapplied');
  assert.equal(p.description, 'HelmRelease · stray/hr.yaml');
});

test('live status decorates nodes of its cluster and lists cluster-only objects', () => {
  const model = corpus('flux2-kustomize-helm-example');
  const live: LiveLookup = {
    clusterName: 'production',
    get: (kind, ns, name) =>
      kind === 'Kustomization' && ns === 'flux-system' && name === 'apps'
        ? { kind, namespace: ns, name, state: 'Suspended', message: 'suspended by *ops*', revision: 'main@sha1:abc' }
        : undefined,
    clusterOnly: () => [{ kind: 'HelmRelease', namespace: 'x', name: 'ghost', state: 'NotReady', message: 'install failed' }],
  };
  const nodes = rootNodes(model, live);
  assert.deepEqual(nodes.map((n) => present(n, model, live).label), ['production', 'staging', GROUP_CLUSTER_ONLY_LABEL]);
  const prodApps = childrenOf(childrenOf(nodes[0])[0])[0];
  const stagingApps = childrenOf(childrenOf(nodes[1])[0])[0];
  const p = present(prodApps, model, live);
  assert.equal(p.contextValue, 'flux:Kustomization:inCluster:suspended');
  assert.match(p.description ?? '', / · Suspended$/);
  assert.match(p.tooltip ?? '', /suspended by \\\*ops\\\*/);
  assert.deepEqual(p.icon, { codicon: 'debug-pause', color: 'disabledForeground' });
  assert.equal(present(stagingApps, model, live).contextValue, 'flux:Kustomization');
  const [ghost] = childrenOf(nodes[2]);
  const g = present(ghost, model, live);
  assert.equal(g.contextValue, 'flux:HelmRelease:inCluster:notReady:clusterOnly');
  assert.match(g.contextValue, /^flux:HelmRelease/);
});

test('context values follow the documented scheme', () => {
  assert.equal(fluxContextValue('GitRepository', 'GitRepository', undefined), 'flux:source:GitRepository');
  assert.equal(fluxContextValue('HelmRelease', 'HelmRelease', 'Absent'), 'flux:HelmRelease:absent');
  assert.equal(fluxContextValue('ArtifactGenerator', 'ArtifactGenerator', undefined), 'flux:generator:ArtifactGenerator');
  assert.equal(fluxContextValue('ConfigMap', undefined, undefined), 'resource:ConfigMap');
});

test('bjw-s-labs-home-ops: every Kustomization and HelmRelease is reachable in the tree', () => {
  const model = corpus('bjw-s-labs-home-ops');
  let ks = 0;
  let hr = 0;
  const walk = (nodes: TreeNode[]) => {
    for (const n of nodes) {
      if (n.type === 'flux' && n.applied.object.fluxKind === 'Kustomization') ks++;
      if (n.type === 'flux' && n.applied.object.fluxKind === 'HelmRelease') hr++;
      walk(childrenOf(n));
    }
  };
  walk(rootNodes(model));
  const expectedKs = model.clusters.reduce((s, c) => s + c.kustomizations.length, 0);
  const expectedHr = model.clusters.reduce((s, c) => s + c.helmReleases.length, 0);
  assert.ok(expectedKs >= 90, `expected the corpus' ~93 Kustomizations, model has ${expectedKs}`);
  assert.equal(ks, expectedKs);
  assert.equal(hr, expectedHr);
});

test('pathsTo finds every place a document sits in the tree', () => {
  const model = corpus('flux2-kustomize-helm-example');
  const release = model.allObjects.find((o) => o.kind === 'HelmRelease' && o.name === 'podinfo')!;
  const paths = pathsTo(model, release.id);
  assert.deepEqual(
    paths.map((p) => p.map((n) => present(n, model).label)),
    [
      ['production', 'flux-system', 'apps', 'podinfo'],
      ['staging', 'flux-system', 'apps', 'podinfo'],
    ],
  );
  const ns = model.allObjects.find((o) => o.kind === 'Namespace' && o.name === 'podinfo')!;
  assert.deepEqual(pathsTo(model, ns.id)[0].map((n) => n.type), ['cluster', 'flux', 'flux', 'resources', 'resource']);
  // With a memoising children function, the nodes returned are the ones it handed out.
  const memo = new Map<string, TreeNode[]>();
  const kids = (n: TreeNode) => memo.get(n.id) ?? (memo.set(n.id, childrenOf(n)), memo.get(n.id)!);
  const roots = rootNodes(model);
  const [first] = pathsTo(model, release.id, roots, kids);
  assert.equal(first[0], roots[0]);
  assert.ok(kids(first[2]).includes(first[3]));
});
