/**
 * kubeconform (built by test/cluster/build.sh into the test tools' cache) run the way CI runs it
 * over a folder of manifests: -strict, our schemas (./jsonSchemas.ts) as the only schema location,
 * JSON output so each flagged object can be matched with ours.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { childCpuMs } from './childProcess';
import { SCHEMA_TEMPLATE } from './jsonSchemas';
import { testToolBin } from './testTools';

/** KUBECONFORM_BIN, else the test tools' cached build; throws with how to build it. */
export function kubeconformBin(): string {
  return testToolBin('KUBECONFORM_BIN', 'kubeconform');
}

export function kubeconformVersion(bin: string): string {
  return execFileSync(bin, ['-v'], { encoding: 'utf8' }).trim();
}

/** What kubeconform's JSON output names an object by: unique per file in what writeObjectFiles writes. */
const signature = (file: string, apiVersion: string, kind: string, name: string) => `${file}|${apiVersion}|${kind}|${name}`;

export interface WrittenObjects {
  readonly files: string[];
  /** signature → index into the objects written. */
  readonly index: Map<string, number>;
}

const PER_FILE = 50;

/**
 * The objects as multi-document files of up to PER_FILE documents, no two documents of a file with
 * the same apiVersion, kind and name, so the output's (file, version, kind, name) names one object.
 * `json`: each document one line of JSON (read the same by any YAML parser: no YAML 1.1/1.2
 * differences); `block`: block-style YAML as `kustomize build` prints it, strings that YAML 1.1
 * would read as something else quoted (a document holding a character go-yaml reads as a line
 * break stays JSON).
 */
export function writeObjectFiles(dir: string, bodies: readonly Record<string, unknown>[], style: 'json' | 'block' = 'json'): WrittenObjects {
  const chunks: { docs: string[]; seen: Set<string>; members: number[] }[] = [];
  const index = new Map<string, number>();
  const files: string[] = [];
  bodies.forEach((body, i) => {
    const id = `${String(body.apiVersion)}|${String(body.kind)}|${nameOf(body)}`;
    let chunk = chunks.find((c) => c.docs.length < PER_FILE && !c.seen.has(id));
    if (!chunk) chunks.push((chunk = { docs: [], seen: new Set(), members: [] }));
    const json = JSON.stringify(body);
    // go-yaml reads U+0085, U+2028 and U+2029 as line breaks, which a literal block may hold: such a document stays JSON.
    chunk.docs.push(style === 'json' || /[\u0085\u2028\u2029]/.test(json) ? json : stringify(body, { version: '1.1', lineWidth: 0 }).trimEnd());
    chunk.seen.add(id);
    chunk.members.push(i);
  });
  fs.mkdirSync(dir, { recursive: true });
  chunks.forEach((c, n) => {
    const file = path.join(dir, `objects-${String(n).padStart(4, '0')}.yaml`);
    fs.writeFileSync(file, c.docs.map((d) => `---\n${d}\n`).join(''));
    files.push(file);
    for (const i of c.members) index.set(signature(file, String(bodies[i].apiVersion), String(bodies[i].kind), nameOf(bodies[i])), i);
  });
  return { files, index };
}

function nameOf(body: Record<string, unknown>): string {
  const name = (body.metadata as Record<string, unknown> | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

export interface KubeconformRun {
  readonly ms: number;
  /** User + system CPU time of the process. */
  readonly cpuMs: number;
  readonly summary: { valid: number; invalid: number; errors: number; skipped: number };
  /** Object index → kubeconform's errors (`/json/pointer: message`), for each object it reported invalid or in error. */
  readonly flagged: Map<number, string[]>;
}

interface Output {
  resources: { filename: string; kind: string; name: string; version: string; status: string; msg: string; validationErrors?: { path: string; msg: string }[] }[];
  summary: KubeconformRun['summary'];
}

/** One run over `target` (a folder or file) with `workers` workers (-n); wall time of the process. */
export function runKubeconform(bin: string, schemaDir: string, target: string, workers: number, options: { written?: WrittenObjects; skip?: string[] } = {}): KubeconformRun {
  const { written } = options;
  const skip = options.skip?.length ? ['-skip', options.skip.join(',')] : [];
  const args = ['-strict', '-summary', '-output', 'json', '-n', String(workers), ...skip, '-schema-location', path.join(schemaDir, SCHEMA_TEMPLATE), target];
  // Through bash for `times`: the CPU time of kubeconform (all its threads), which a loaded machine leaves as it is.
  const script = '"$0" "$@"; s=$?; times >&2; exit $s';
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', script, bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  // Exit 1 when an object is invalid; anything else (or no JSON) is a failed run.
  if (r.status !== 0 && r.status !== 1) throw new Error(`kubeconform exited ${r.status}: ${r.stderr}`);
  const cpuMs = childCpuMs(r.stderr);
  const out = JSON.parse(r.stdout) as Output;
  const flagged = new Map<number, string[]>();
  for (const res of out.resources) {
    const i = written?.index.get(signature(res.filename, res.version, res.kind, res.name));
    if (written && i === undefined) throw new Error(`kubeconform reported an object not written: ${res.filename} ${res.kind} ${res.name}: ${res.msg}`);
    if (i !== undefined) flagged.set(i, leafErrors(res.msg));
  }
  return { ms, cpuMs, summary: out.summary, flagged };
}

/**
 * The innermost errors of a result's message: `validationErrors` stop at the first level (a `$ref`
 * or `allOf` shows as "/spec: validation failed"), the message lists every cause as `- at '<pointer>': <text>`.
 */
function leafErrors(msg: string): string[] {
  const leaves = [...msg.matchAll(/- at '([^']*)': (.*?)(?= +- at '|$)/g)].map((m) => `${m[1]}: ${m[2].trim()}`);
  return leaves.length ? leaves.filter((l) => !l.endsWith(': validation failed')) : [msg];
}
