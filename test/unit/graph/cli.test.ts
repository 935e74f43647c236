import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import { toDot, toMermaid, type DependencyGraph } from '../../../src/core/graph/index';
import { CORPORA, runCliCaptured } from '../helpers';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = 'test/fixtures/graph/problems';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await runCliCaptured(args, REPO_ROOT);
  return { code, out: stdout, err: stderr };
}

/** The contract: exactly these keys (optional ones may be absent), with these types. */
function assertContract(json: any): void {
  assert.deepEqual(Object.keys(json), ['clusters']);
  for (const c of json.clusters) {
    for (const k of ['name', 'nodes', 'edges']) assert.ok(k in c, `cluster has ${k}`);
    for (const n of c.nodes) {
      for (const k of ['id', 'kind', 'name', 'namespace', 'file']) assert.equal(typeof n[k], 'string', `node.${k}`);
      assert.ok(Number.isInteger(n.line) && n.line >= 1, 'node.line is 1-based');
      assert.equal(n.id, `${n.kind}/${n.namespace}/${n.name}`);
      assert.ok(!n.file.startsWith('/') && !n.file.includes('\\'), `relative file ${n.file}`);
      for (const k of Object.keys(n)) assert.ok(['id', 'kind', 'name', 'namespace', 'file', 'line', 'missing', 'inferred', 'problems'].includes(k), `node key ${k}`);
    }
    for (const e of c.edges) {
      assert.equal(typeof e.from, 'string');
      assert.equal(typeof e.to, 'string');
      assert.ok(['dependsOn', 'applies', 'source'].includes(e.type), e.type);
      for (const k of Object.keys(e)) assert.ok(['from', 'to', 'type', 'problem', 'absent'].includes(k), `edge key ${k}`);
      if (e.problem) {
        assert.equal(typeof e.problem.rule, 'string');
        assert.equal(typeof e.problem.message, 'string');
      }
    }
  }
}

test('graph --format json: the contract, relative files, 1-based lines, marked problem edges', async () => {
  const { code, out, err } = await cli(['graph', FIXTURE, '--format', 'json']);
  assert.equal(code, 0, err);
  const json = JSON.parse(out);
  assertContract(json);
  const c = json.clusters[0];
  assert.equal(c.name, 'test');
  assert.deepEqual(
    c.edges.filter((e: any) => e.problem).map((e: any) => [e.type, e.from, e.to, e.problem.rule]).sort(),
    [
      ['applies', 'Kustomization/flux-system/platform', 'HelmRelease/monitoring/kube-prometheus-stack', 'crd-order'],
      ['dependsOn', 'Kustomization/flux-system/a', 'Kustomization/flux-system/b', 'depends-on-cycle'],
      ['dependsOn', 'Kustomization/flux-system/apps', 'Kustomization/flux-system/databases', 'depends-on-not-found'],
      ['dependsOn', 'Kustomization/flux-system/b', 'Kustomization/flux-system/a', 'depends-on-cycle'],
      ['dependsOn', 'Kustomization/flux-system/infra-configs', 'Kustomization/flux-system/infra-controllers', 'crd-order'],
    ],
  );
});

test('graph is the default json; --cluster selects one cluster; --no-sources drops sources', async () => {
  const all = JSON.parse((await cli(['graph', path.join(CORPORA, 'flux2-kustomize-helm-example')])).out);
  assertContract(all);
  assert.deepEqual(all.clusters.map((c: any) => c.name).sort(), ['production', 'staging']);
  const one = JSON.parse((await cli(['graph', path.join(CORPORA, 'flux2-kustomize-helm-example'), '--cluster', 'staging', '--no-sources'])).out);
  assert.deepEqual(one.clusters.map((c: any) => c.name), ['staging']);
  assert.ok(one.clusters[0].nodes.every((n: any) => n.kind === 'Kustomization' || n.kind === 'HelmRelease'));
  assert.ok(one.clusters[0].edges.some((e: any) => e.type === 'dependsOn' && e.from === 'Kustomization/flux-system/apps' && e.to === 'Kustomization/flux-system/infra-configs'));
});

test('graph: usage errors exit 2 with a clear message', async () => {
  const unknown = await cli(['graph', FIXTURE, '--cluster', 'nope']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /no cluster named nope \(clusters: test\)/);
  const format = await cli(['graph', FIXTURE, '--format', 'png']);
  assert.equal(format.code, 2);
  assert.match(format.err, /--format must be one of json, dot, mermaid/);
  assert.equal((await cli(['graph', 'does-not-exist'])).code, 2);
});

test('graph --format dot: Graphviz parses and lays it out; problem edges red with their message', async () => {
  const graphviz = await Graphviz.load();
  for (const dir of [FIXTURE, path.join(CORPORA, 'bjw-s-labs-home-ops'), path.join(CORPORA, 'flux2-kustomize-helm-example')]) {
    const { code, out } = await cli(['graph', dir, '--format', 'dot']);
    assert.equal(code, 0);
    assert.match(out, /^digraph "gitops-preview" \{\n  rankdir=LR;/);
    // Graphviz's own parser and the dot layout engine: a syntax error throws.
    const svg = graphviz.dot(out);
    assert.match(svg, /<svg[\s\S]*<\/svg>/);
    const nodeCount = (out.match(/^ {4}"\d+:[^"]+" \[label=/gm) ?? []).length;
    assert.equal((svg.match(/class="node"/g) ?? []).length, nodeCount, `${dir}: every node rendered`);
  }
  const { out } = await cli(['graph', FIXTURE, '--format', 'dot']);
  // Drawn in Flux's order: dependency first (a before b for "b dependsOn a").
  assert.match(out, /"0:Kustomization\/flux-system\/a" -> "0:Kustomization\/flux-system\/b" \[tooltip="dependsOn cycle flux-system\/b -> [^"]*", color="#c62828"/);
  assert.throws(() => graphviz.dot('digraph { a -> }'), 'the renderer rejects invalid DOT');
});

test('graph --format dot escapes quotes and backslashes in names', async () => {
  const graph: DependencyGraph = {
    clusters: [{ name: 'c "1"', root: 'Kustomization/ns/a"b\\c', nodes: [{ id: 'Kustomization/ns/a"b\\c', kind: 'Kustomization', name: 'a"b\\c', namespace: 'ns', file: 'x.yaml', line: 1 }], edges: [] }],
  };
  const dot = toDot(graph);
  assert.ok(dot.includes('"0:Kustomization/ns/a\\"b\\\\c"'), dot);
  const graphviz = await Graphviz.load();
  assert.match(graphviz.dot(dot), /a&quot;b\\c/);
});

test('graph --format mermaid: flowchart LR, safe ids, escaped labels, red problem links', async () => {
  const { code, out } = await cli(['graph', FIXTURE, '--format', 'mermaid']);
  assert.equal(code, 0);
  const lines = out.trimEnd().split('\n');
  assert.equal(lines[0], 'flowchart LR');
  const json = JSON.parse((await cli(['graph', FIXTURE])).out).clusters[0];
  const nodeLines = lines.filter((l) => /^ {4}c0n\d+\[/.test(l));
  assert.equal(nodeLines.length, json.nodes.length);
  const links = lines.filter((l) => /^ {2}c0n\d+ (-->|-\.->|-\.-o)/.test(l));
  assert.equal(links.length, json.edges.length);
  // Every line is a statement Mermaid's flowchart grammar knows.
  for (const l of lines.slice(1)) {
    assert.match(l, /^(  subgraph c\d+\["[^"]*"\]|  end|    c\d+n\d+(\["[^"]*"\]|\[\("[^"]*"\)\])|  c\d+n\d+ (-->|-\.->|-\.-o)(\|"[^"]*"\|)? c\d+n\d+|  classDef \w+ .+|  class [c\dn,]+ \w+|  linkStyle [\d,]+ [^ ]+)$/, l);
  }
  const problemLinks = links.map((l, i) => [l, i] as const).filter(([l]) => l.includes('|"')).map(([, i]) => i);
  assert.equal(problemLinks.length, 5);
  assert.ok(lines.includes(`  linkStyle ${problemLinks.join(',')} stroke:#c62828,stroke-width:2px,color:#c62828`));
  // Names cannot break out of their quoted label.
  const tricky = toMermaid({ clusters: [{ name: 'x', root: 'a', nodes: [{ id: 'Kustomization/ns/a"]; click', kind: 'Kustomization', name: 'a"]; click <b>#', namespace: 'ns', file: 'f', line: 1 }], edges: [] }] });
  assert.ok(tricky.includes('c0n0["a#quot;]; click #lt;b#gt;#35;<br/>Kustomization · ns"]'), tricky);
});
