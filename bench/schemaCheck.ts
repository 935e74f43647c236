/**
 * Schema bench, parts a and b: what the schema check (src/core/checks/schema.ts) adds to a full
 * check of a corpus, and to the re-check after one document is edited. Its verdicts are cached per
 * object body, so a cold run needs a fresh model: the corpus reopened with the build cache of the
 * first open (no kustomize run, every body new).
 */
import * as fs from 'node:fs';
import { checkModel } from '../src/core/checks/index';
import { CheckContext } from '../src/core/checks/context';
import { checkSchemas } from '../src/core/checks/schema';
import type { RepoModel } from '../src/core/model/graph';
import { schemasFor } from '../src/core/schema/catalog';
import type { Folder } from '../src/engine/folder';
import { MemoryBuildCache } from '../src/engine/memoryBuildCache';
import { corpusFolder, corpusInfo } from '../test/unit/corpora/snapshot';
import { timed } from './inputs';

/** The garbage the reopen left is collected before a timing starts (`npm run bench` exposes gc). */
const collect = () => (globalThis as { gc?: () => void }).gc?.();

export async function openCorpus(name: string, cache = new MemoryBuildCache()): Promise<{ folder: Folder; cache: MemoryBuildCache }> {
  const { folder } = await corpusFolder(name, corpusInfo(name).branch, cache);
  return { folder, cache };
}

/**
 * A fresh model of the corpus with every file parsed: files parse lazily, and whichever rule reads
 * a document first would otherwise pay for its parse (as in checks.bench.ts, parsing is kept apart).
 */
async function freshModel(name: string, cache: MemoryBuildCache): Promise<RepoModel> {
  const { folder } = await openCorpus(name, cache);
  for (const f of folder.repo.workspace.files.values()) void f.docs;
  return folder.model();
}

/** Wall and CPU ms. */
export interface Took {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function schemaPass(model: RepoModel): Took & { findings: number } {
  const ctx = new CheckContext(model);
  const t = timed(() => checkSchemas(ctx));
  return { wallMs: t.wallMs, cpuMs: t.cpuMs, findings: ctx.diagnostics.length };
}

export interface FullCheckRun {
  /** checkModel on a fresh model: every rule, the schema check cold. */
  readonly full: Took;
  /** checkSchemas alone on another fresh model (cold). */
  readonly schema: Took;
  /** checkModel right after, its schema verdicts cached: every other rule cold. */
  readonly rest: Took;
  /** checkSchemas once more: what the cached schema pass inside `rest` costs. */
  readonly cachedSchema: Took;
}

export async function fullChecks(name: string, runs: number): Promise<{ runs: FullCheckRun[]; applied: number; judged: number; findings: number }> {
  const { cache } = await openCorpus(name);
  const out: FullCheckRun[] = [];
  let findings = 0;
  let applied = 0;
  let judged = 0;
  for (let i = 0; i < runs; i++) {
    const a = await freshModel(name, cache);
    collect();
    const full = timed(() => checkModel(a));
    const b = await freshModel(name, cache);
    collect();
    const cold = schemaPass(b);
    const rest = timed(() => checkModel(b));
    out.push({ full, schema: cold, rest, cachedSchema: schemaPass(b) });
    findings = cold.findings;
    const objects = b.clusters.flatMap((c) => c.objects);
    applied = objects.length;
    judged = objects.filter((o) => schemasFor(b, o.apiVersion, o.kind).length > 0).length;
  }
  return { runs: out, applied, judged, findings };
}

export interface EditTarget {
  readonly label: string;
  readonly file: string;
  readonly from: string;
  readonly to: (i: number) => string;
}

export interface EditRun {
  readonly schema: Took;
  /** checkModel after it (schema verdicts then cached): the other rules' part of the re-check. */
  readonly restMs: number;
  /** Applied object bodies the edit made new: those the schema check validates again. */
  readonly newBodies: number;
}

/**
 * `edits` buffer edits of one document, each followed by what the engine runs: the Kustomization
 * builds the edit makes stale (refine), then the checks on the new model.
 */
export async function editChecks(folder: Folder, target: EditTarget, edits: number): Promise<EditRun[]> {
  const original = fs.readFileSync(target.file, 'utf8');
  if (!original.includes(target.from)) throw new Error(`${target.file} has no '${target.from}' to edit`);
  const bodies = (m: RepoModel) => new Set<object>(m.clusters.flatMap((c) => c.objects.map((o) => o.object.body)));
  checkModel(folder.model());
  let before = bodies(folder.model());
  const out: EditRun[] = [];
  try {
    for (let i = 0; i < edits; i++) {
      folder.repo.setBuffer(target.file, original.replace(target.from, target.to(i)));
      await folder.refine({ allowNetwork: false });
      const model = folder.model();
      const now = bodies(model);
      const newBodies = [...now].filter((b) => !before.has(b)).length;
      // No forced collection here: the editor runs the checks straight after the model, and a
      // collection forced just before left the collector's concurrent threads running through the
      // timed pass (CPU p95 13-16 ms against a wall p95 of 6-8 ms, docs/benchmarks.md).
      const schema = schemaPass(model);
      out.push({ schema, restMs: timed(() => checkModel(model)).wallMs, newBodies });
      before = now;
    }
  } finally {
    folder.repo.setBuffer(target.file, undefined);
    await folder.refine({ allowNetwork: false });
  }
  return out;
}
