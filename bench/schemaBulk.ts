/**
 * Schema bench, part d: every object of every shared corpus that has a bundled schema (Flux and
 * built-in kinds), as the model holds it once the corpus is opened as `check` opens it (applied
 * objects as their Kustomization's build gives them, the rest as written), validated by
 * validateObject and by kubeconform with the same schemas (./jsonSchemas.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unknownValue } from '../src/core/checks/schema';
import { builtinSchema } from '../src/core/schema/kube';
import { validateObject, type Schema, type SchemaFinding } from '../src/core/schema/structural';
import { libraryParse, parseSourceFile } from '../src/core/yaml/document';
import { MemoryBuildCache } from '../src/engine/memoryBuildCache';
import { corpusFolder, corpusInfo, corpusNames } from '../test/unit/corpora/snapshot';
import flux from '../src/core/schema/flux.generated.json';
import { median, timed } from './inputs';
import type { Took } from './schemaCheck';
import type { KubeconformRun, WrittenObjects } from './kubeconform';

const FLUX = (flux as { schemas: Record<string, Schema> }).schemas;

/** The bundled schema of `apiVersion/kind`: what this comparison hands kubeconform too. */
export function bundledSchema(apiVersion: unknown, kind: unknown): Schema | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const key = `${apiVersion}/${kind}`;
  return (Object.prototype.hasOwnProperty.call(FLUX, key) ? FLUX[key] : undefined) ?? builtinSchema(key);
}

export interface BulkObject {
  readonly corpus: string;
  /** A file the object comes from, relative to the corpus (for examples). */
  readonly file: string;
  readonly body: Record<string, unknown>;
  readonly schema: Schema;
}

/** Every corpus opened (builds as `check` runs them), its objects with a bundled schema, each body once. */
export async function gatherObjects(log: (m: string) => void): Promise<{ objects: BulkObject[]; corpora: number; openMs: number }> {
  const objects: BulkObject[] = [];
  const t0 = performance.now();
  const names = corpusNames();
  for (const name of names) {
    const { folder, dir } = await corpusFolder(name, corpusInfo(name).branch, new MemoryBuildCache());
    const model = folder.model();
    const seen = new Set<object>();
    const take = (o: { body: Record<string, unknown>; file: string; synthetic?: boolean }) => {
      if (o.synthetic || seen.has(o.body) || model.patchFiles.has(o.file)) return;
      seen.add(o.body);
      const schema = bundledSchema(o.body.apiVersion, o.body.kind);
      if (schema) objects.push({ corpus: name, file: path.relative(dir, o.file), body: o.body, schema });
    };
    for (const cluster of model.clusters) for (const a of cluster.objects) take(a.object);
    for (const o of model.allObjects) if (!model.appliedById.has(o.id)) take(o);
    log(`schema bench: ${name}: ${seen.size} objects`);
  }
  return { objects, corpora: names.length, openMs: performance.now() - t0 };
}

const OPTIONS = { patterns: true, unknown: unknownValue };

export function ourFindings(objects: readonly BulkObject[]): SchemaFinding[][] {
  return objects.map((o) => validateObject(o.body, o.schema, OPTIONS));
}

/** Wall and CPU time of validating every object, single-threaded: the first pass, and the median of the next `runs`. */
export function timeOurs(objects: readonly BulkObject[], runs: number): { first: Took; median: Took } {
  const times: Took[] = [];
  for (let r = 0; r <= runs; r++) times.push(timed(() => objects.forEach((o) => validateObject(o.body, o.schema, OPTIONS))));
  const rest = times.slice(1);
  return { first: times[0], median: { wallMs: median(rest.map((t) => t.wallMs)), cpuMs: median(rest.map((t) => t.cpuMs)) } };
}

/**
 * The same files kubeconform reads, read and parsed by the product's YAML reader (as a workspace
 * file is: the quick parse where it answers, else the yaml library's), or by the yaml library's
 * parse alone (as before the quick parse), then validated; the run with the median total of `runs`,
 * with its read+parse part.
 */
export function timeOursFromFiles(files: readonly string[], runs: number, reader: 'product' | 'library' = 'product'): Took & { parseMs: number; objects: number } {
  const results: (Took & { parseMs: number; objects: number })[] = [];
  for (let r = 0; r < runs; r++) {
    let objects = 0;
    let parseMs = 0;
    const t = timed(() => {
      for (const file of files) {
        const t1 = performance.now();
        const text = fs.readFileSync(file, 'utf8');
        const docs = reader === 'product' ? parseSourceFile(file, text).docs : libraryParse(text).docs;
        parseMs += performance.now() - t1;
        for (const doc of docs) {
          const body = doc.value as Record<string, unknown>;
          const schema = bundledSchema(body.apiVersion, body.kind);
          if (!schema) throw new Error(`${file}: no bundled schema for ${String(body.apiVersion)} ${String(body.kind)}`);
          validateObject(body, schema, OPTIONS);
          objects++;
        }
      }
    });
    results.push({ wallMs: t.wallMs, cpuMs: t.cpuMs, parseMs, objects });
  }
  return results.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs / 2)];
}

export interface Agreement {
  readonly both: number;
  readonly oursOnly: number[];
  readonly theirsOnly: number[];
}

export function compare(ours: SchemaFinding[][], theirs: KubeconformRun, written: WrittenObjects): Agreement {
  if (written.index.size !== ours.length) throw new Error(`${ours.length} objects, ${written.index.size} written`);
  let both = 0;
  const oursOnly: number[] = [];
  const theirsOnly: number[] = [];
  ours.forEach((found, i) => {
    const flagged = theirs.flagged.has(i);
    if (found.length && flagged) both++;
    else if (found.length) oursOnly.push(i);
    else if (flagged) theirsOnly.push(i);
  });
  return { both, oursOnly, theirsOnly };
}

/** The value at a JSON pointer kubeconform reports (`/spec/replicas`). */
export function atPointer(body: unknown, pointer: string): unknown {
  let v = body;
  for (const raw of pointer.split('/').slice(1)) {
    const k = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    v = Array.isArray(v) ? v[Number(k)] : v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  }
  return v;
}
