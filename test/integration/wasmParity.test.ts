/**
 * The WebAssembly kustomize and helm give the native binaries' output byte for byte: every
 * Kustomization of ../shared/corpora (and the render fixture) is built from the same file set by
 * the kustomize module and by `kustomize build` (KUSTOMIZE_BIN), and the fixture chart by the helm
 * module and `helm template` (HELM_BIN).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { Repo } from '../../src/core/repo';
import { diskHost } from '../../src/node/fsHost';
import { wasmModule } from '../../src/engine/wasm/pool';
import type { MemFile } from '../../src/engine/wasm/protocol';
import { kustomizeInput } from '../../src/render/kustomize';
import { diskDirFiles } from '../../src/render/files';
import { REVIEWED_CORPORA } from './tools';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '../..');
const corporaDir = path.join(repoRoot, '..', 'shared', 'corpora');
const fixture = path.join(repoRoot, 'test/fixtures/render/app-repo');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const open = (root: string) => new Repo(root.split(path.sep).join('/'), diskHost, { sha256 }).model();

function bins(): { kustomize: string; helm: string } {
  const out = execFileSync('bash', [path.join(repoRoot, 'test/cluster/tools-env.sh'), '--print'], { encoding: 'utf8', timeout: 10_000 });
  const env = Object.fromEntries(out.trim().split('\n').map((l) => l.split('=') as [string, string]));
  const k = process.env.KUSTOMIZE_BIN || env.KUSTOMIZE_BIN;
  const h = process.env.HELM_BIN || env.HELM_BIN;
  assert.ok(fs.existsSync(k) && fs.existsSync(h), `kustomize/helm binaries missing (${k}, ${h}); run bash test/cluster/build.sh`);
  return { kustomize: k, helm: h };
}
const { kustomize, helm } = bins();

async function writeFiles(dir: string, files: readonly MemFile[]): Promise<void> {
  for (const f of files) {
    const p = path.join(dir, f.path);
    await fs.promises.mkdir(path.dirname(p), { recursive: true });
    await fs.promises.writeFile(p, f.data);
  }
}

/** Native output or the first line of its error. */
async function native(bin: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const r = await run(bin, args, { maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });
    return { ok: true, out: r.stdout };
  } catch (err) {
    return { ok: false, out: String((err as { stderr?: string }).stderr ?? err) };
  }
}

async function pool<T>(items: readonly T[], n: number, f: (t: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      await f(items[i], i);
    }
  }));
}

test('kustomize: WebAssembly and the native binary build every corpus Kustomization identically', async (t) => {
  assert.ok(fs.existsSync(corporaDir), `${corporaDir} is missing`);
  // The reviewed corpora (385 builds); WASM_PARITY_ALL=1 takes every shared corpus (about 30 minutes here).
  const names = process.env.WASM_PARITY_ALL === '1' ? fs.readdirSync(corporaDir).sort() : REVIEWED_CORPORA;
  const repos = [fixture, ...names.map((c) => path.join(corporaDir, c)).filter((d) => fs.statSync(d).isDirectory())];
  const jobs: { label: string; dir: string; files: MemFile[] }[] = [];
  for (const repo of repos) {
    const model = open(repo);
    const seen = new Set<string>();
    for (const cluster of model.clusters) {
      for (const ks of cluster.kustomizations) {
        const input = kustomizeInput(model, ks);
        if (!input.ok) continue;
        const files = input.value.files;
        // Clusters often share a Kustomization (same path, same files): build each distinct input once.
        const key = sha256(JSON.stringify([input.value.dir, files.map((f) => [f.path, typeof f.data === 'string' ? f.data : Buffer.from(f.data).toString('base64')])]));
        if (seen.has(key)) continue;
        seen.add(key);
        jobs.push({ label: `${path.basename(repo)} ${cluster.name} ${ks.applied.namespace}/${ks.applied.name}`, dir: input.value.dir, files });
      }
    }
  }
  const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'gitops-preview-parity-'));
  let identical = 0;
  let bothFailed = 0;
  let nativeMs = 0;
  let wasmMs = 0;
  const differences: string[] = [];
  try {
    // The native builds run two at a time beside the module's (which runs one build at a time).
    await pool(jobs, 3, async (job, i) => {
      const root = path.join(tmp, String(i));
      await writeFiles(root, job.files);
      let t0 = performance.now();
      // kustomize-controller leaves krusty's Reorder option unset (""), which keeps resources in
      // kustomization order; the CLI's default is the legacy kind order, so it is told `--reorder none`.
      const want = await native(kustomize, ['build', '--load-restrictor', 'LoadRestrictionsNone', '--reorder', 'none', path.join(root, job.dir)]);
      nativeMs += performance.now() - t0;
      await fs.promises.rm(root, { recursive: true, force: true });
      t0 = performance.now();
      const got = await wasmModule('kustomize').call('kustomize', { dir: job.dir }, job.files, { timeoutMs: 300_000 });
      wasmMs += performance.now() - t0;
      if (!want.ok && !got.ok) bothFailed++;
      else if (want.ok && got.ok && want.out === got.output) identical++;
      else differences.push(`${job.label}: native ${want.ok ? 'built' : `failed (${want.out.split('\n')[0]})`}, wasm ${got.ok ? 'built' : `failed (${got.message.split('\n')[0]})`}${want.ok && got.ok ? ', outputs differ' : ''}`);
    });
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
  t.diagnostic(`${jobs.length} distinct builds: ${identical} identical, ${bothFailed} failing in both; native ${(nativeMs / 1000).toFixed(1)} s, wasm ${(wasmMs / 1000).toFixed(1)} s (summed)`);
  assert.deepEqual(differences, []);
  assert.ok(identical > 100, `only ${identical} builds compared`);
});

test('helm: WebAssembly and the native binary template the fixture chart identically', async () => {
  const chartDir = path.join(fixture, 'charts/web');
  const model = open(fixture);
  const files = diskDirFiles(model.workspace, chartDir.split(path.sep).join('/'));
  const values = { replicaCount: 3, image: { repository: 'example/web', tag: '9.9' }, podAnnotations: { a: 'b' } };
  const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'gitops-preview-parity-'));
  try {
    await writeFiles(path.join(tmp, 'chart'), files);
    await fs.promises.writeFile(path.join(tmp, 'values.json'), JSON.stringify(values));
    for (const includeCRDs of [true, false]) {
      const args = ['template', 'web-web', path.join(tmp, 'chart'), '--namespace', 'web', '--values', path.join(tmp, 'values.json'), '--kube-version', '1.33.0', '--skip-tests'];
      if (includeCRDs) args.push('--include-crds');
      const want = await native(helm, args);
      assert.ok(want.ok, want.out);
      const got = await wasmModule('helm').call('helm', { releaseName: 'web-web', namespace: 'web', kubeVersion: '1.33.0', includeCRDs, skipTests: true, values }, files, { timeoutMs: 120_000 });
      assert.ok(got.ok, got.ok ? '' : got.message);
      assert.equal(got.output, want.out);
    }
    const bad = await wasmModule('helm').call('helm', { releaseName: 'Bad_Name', namespace: 'web', values }, files);
    assert.ok(!bad.ok && /release name "Bad_Name"/.test(bad.message), JSON.stringify(bad));
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
});

/**
 * The helm module answers toYaml and fromYaml from memory and splits documents without helm's
 * regular expression (wasm/_overlay/helm/pkg/engine/memo.go, wasm/manifests): a chart whose
 * templates change the maps fromYaml gives them, ask for the same conversions again, and write
 * separators helm's expression treats in its own way, rendered three times in one instance (the
 * second from memory), each equal to `helm template`.
 */
test('helm: conversions answered from memory and documents split without a regular expression are helm template', async () => {
  const files: MemFile[] = [
    { path: 'Chart.yaml', data: 'apiVersion: v2\nname: memo\nversion: 0.1.0\n' },
    { path: 'values.yaml', data: 'extra: {}\n' },
    { path: 'templates/_base.tpl', data: '{{- define "memo.base" -}}\na: 1\nlist: [1, 2.5, "x"]\nnested:\n  k: v\n  "10": ten\n  "9": nine\n{{- end -}}\n' },
    {
      path: 'templates/first.yaml',
      data: [
        '{{- $m := fromYaml (include "memo.base" .) }}',
        '{{- $_ := set $m "added" "first" }}',
        '{{- $_ := set $m.nested "k" "changed" }}',
        '{{- $_ := set $m "list" (append $m.list "more") }}',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: first',
        'data:',
        '  m: {{ toYaml $m | quote }}',
        '  extra: {{ toYaml .Values.extra | quote }}',
        '',
      ].join('\n'),
    },
    {
      path: 'templates/second.yaml',
      data: [
        '{{- $m := fromYaml (include "memo.base" .) }}',
        '  ',
        '---   ',
        '# a comment, then the object',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: second}',
        'data:',
        '  m: {{ toYaml $m | quote }}',
        '  again: {{ toYaml (fromYaml (include "memo.base" .)) | quote }}',
        '  broken: {{ (fromYaml "a: [").Error | quote }}',
        '  nothing: {{ toYaml (fromYaml "~") | quote }}',
        '  block: |',
        '    ---',
        '    text --- with dashes',
        ' \t',
        '---',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: third',
        '  annotations: {n: {{ toYaml .Values.extra | quote }}}',
        '--- # trailing',
        '',
      ].join('\n'),
    },
  ];
  const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'gitops-preview-parity-'));
  try {
    await writeFiles(path.join(tmp, 'chart'), files);
    const renders = [{ extra: { z: 1, a: [true, null] } }, { extra: { z: 1, a: [true, null] } }, { extra: { other: 'value' } }];
    for (const [i, values] of renders.entries()) {
      await fs.promises.writeFile(path.join(tmp, 'values.json'), JSON.stringify(values));
      const want = await native(helm, ['template', 'memo', path.join(tmp, 'chart'), '--namespace', 'memo', '--values', path.join(tmp, 'values.json'), '--kube-version', '1.33.0']);
      assert.ok(want.ok, want.out);
      assert.match(want.out, /name: third/);
      const got = await wasmModule('helm').call('helm', { chartKey: 'memo-parity', releaseName: 'memo', namespace: 'memo', kubeVersion: '1.33.0', values }, i === 0 ? files : [], { timeoutMs: 120_000 });
      assert.ok(got.ok, got.ok ? '' : got.message);
      assert.equal(got.output, want.out, `render ${i + 1}`);
    }
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
});
