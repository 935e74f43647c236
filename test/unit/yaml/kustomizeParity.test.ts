/**
 * Our YAML reader against kustomize's (kyaml over go-yaml v3, the WebAssembly module of dist/wasm)
 * on every YAML file of the shared corpora: a document kustomize reads must not be a `yaml-syntax`
 * finding of ours, and the reverse. kustomize reads each file as the only resource of a folder of its
 * own; files of Kubernetes objects share builds (a build accumulates its folders in order and stops
 * at the first that fails, naming it), the others (values, Taskfiles, workflows, which kustomize
 * parses and then refuses as objects) are built alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WasmModule, wasmDir } from '../../../src/engine/wasm/host';
import type { MemFile } from '../../../src/engine/wasm/protocol';
import { parseSourceFile } from '../../../src/core/yaml/document';
import { CORPORA, yamlFilesUnder } from '../helpers';
import { corpusNames } from '../corpora/snapshot';

/** Files with a go-yaml error that our reader accepts: Helm templates whose `{{ … }}` make a flow mapping a key. */
const KNOWN_LENIENT = new Set([
  'GizmoTickler-home-ops/cmd/homeops-cli/internal/templates/bootstrap/clustersecretstore.yaml',
  'allenporter-k8s-gitops/kubernetes/devcontainers/charts/devcontainer-workspace/templates/service.yaml',
]);

/** Whether kustomize's error is go-yaml's (a syntax error), not a complaint about the content. */
const isYamlError = (message: string) => /\byaml: |MalformedYAMLError/.test(message);

/** Files kustomize should accumulate as objects (so one build can go on past them): every document a named object. */
function looksLikeObjects(docs: { value: unknown }[]): boolean {
  const named = (v: unknown) => {
    const o = v as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } } | null;
    return typeof o === 'object' && o !== null && !Array.isArray(o) && typeof o.apiVersion === 'string' && typeof o.kind === 'string' && typeof o.metadata?.name === 'string';
  };
  return docs.some((d) => d.value != null) && docs.every((d) => d.value == null || named(d.value));
}

/** Files per build: a build is sent only the folders it may reach. */
const WINDOW = 200;

/**
 * kustomize's verdict on each text: true when its YAML does not parse. `batch[i]` says the text may
 * share a build with its neighbours (a guess: a wrong one costs a build more, never a wrong verdict).
 */
async function kustomizeRejects(m: WasmModule, texts: string[], batch: boolean[]): Promise<boolean[]> {
  const verdicts: boolean[] = new Array(texts.length).fill(false);
  let start = 0;
  while (start < texts.length) {
    let end = start + 1;
    while (end < texts.length && end - start < WINDOW && batch[start] && batch[end]) end++;
    const files: MemFile[] = [{ path: 'top/kustomization.yaml', data: `resources:\n${texts.slice(start, end).map((_, k) => `  - ../f/${start + k}\n`).join('')}` }];
    for (let i = start; i < end; i++) {
      // A suffix per folder, so that two files holding the same object do not collide in the build.
      files.push({ path: `f/${i}/kustomization.yaml`, data: `resources: [r.yaml]\nnameSuffix: -f${i}\n` }, { path: `f/${i}/r.yaml`, data: texts[i] });
    }
    const r = await m.call('kustomize', { dir: 'top' }, files);
    if (r.ok) {
      start = end;
      continue;
    }
    if (r.kind !== 'failed') throw new Error(`kustomize: ${r.message}`);
    const failed = /^accumulating resources: accumulation err='accumulating resources from '\.\.\/f\/(\d+)'/.exec(r.message);
    const at = failed ? Number(failed[1]) : end - start === 1 ? start : -1;
    if (at < start || at >= end) {
      // The error names no folder: build this window's files one by one.
      for (let i = start; i < end; i++) batch[i] = false;
      continue;
    }
    verdicts[at] = isYamlError(r.message);
    start = at + 1;
  }
  return verdicts;
}

test('every YAML file of the corpora that kustomize reads, our reader reads too', async () => {
  const m = new WasmModule('kustomize', path.join(wasmDir(), 'kustomize.wasm'));
  const disagreements: string[] = [];
  let checked = 0;
  try {
    for (const corpus of corpusNames()) {
      const root = path.join(CORPORA, corpus);
      const list = yamlFilesUnder(root);
      const texts = list.map((f) => fs.readFileSync(f, 'utf8'));
      const parsed = list.map((f, i) => parseSourceFile(f, texts[i]));
      const theirs = await kustomizeRejects(m, texts, parsed.map((p) => looksLikeObjects(p.docs)));
      list.forEach((file, i) => {
        const { problems, docs } = parsed[i];
        const ours = [...problems, ...docs.flatMap((d) => d.problems)].find((p) => !p.limit);
        const rel = `${corpus}/${path.relative(root, file).split(path.sep).join('/')}`;
        checked++;
        if (ours && !theirs[i]) disagreements.push(`${rel}: kustomize reads it, ours says "${ours.message}"`);
        if (!ours && theirs[i] && !KNOWN_LENIENT.has(rel)) disagreements.push(`${rel}: kustomize rejects it, ours reads it`);
      });
    }
  } finally {
    await m.dispose();
  }
  assert.ok(checked > 10_000, `only ${checked} files`);
  assert.deepEqual(disagreements, []);
});
