/**
 * Schema validation (issue 26): what the schema check adds to a full check of bjw-s-labs-home-ops
 * and to the re-check after a one-document edit, completion latency, and a kubeconform-style bulk
 * run over every corpus beside kubeconform itself (test/cluster/build.sh builds it; this bench fails
 * without it). Parts: ./schemaCheck.ts (a, b), ./schemaCompletion.ts (c), ./schemaBulk.ts with
 * ./kubeconform.ts and ./jsonSchemas.ts (d).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { unknownValue } from '../src/core/checks/schema';
import { builtinSchema } from '../src/core/schema/kube';
import { Folder } from '../src/engine/folder';
import { MemoryBuildCache } from '../src/engine/memoryBuildCache';
import { diskHost } from '../src/node/fsHost';
import { fillCache } from './helm.bench';
import { CORPORA, median, percentile } from './inputs';
import { bundledKinds, writeJsonSchemas } from './jsonSchemas';
import { kubeconformBin, kubeconformVersion, runKubeconform, writeObjectFiles, type KubeconformRun } from './kubeconform';
import { atPointer, compare, gatherObjects, ourFindings, timeOurs, timeOursFromFiles, type BulkObject } from './schemaBulk';
import { editChecks, fullChecks, openCorpus, type EditTarget, type FullCheckRun, type Took } from './schemaCheck';
import { placesIn, spread, timeCompletions, type Answer } from './schemaCompletion';

const CORPUS = 'bjw-s-labs-home-ops';
const FULL_RUNS = 15;
const EDITS = 100;
const PLACES_PER_KIND = 150;
const OUR_RUNS = 5;
const KC_RUNS = 3;
const TARGET_FULL_MS = 100;
const TARGET_EDIT_MS = 5;
const TARGET_COMPLETION_MS = 50;

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const met = (ok: boolean) => (ok ? '**met**' : '**missed**');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** What a fresh process pays before its first built-in kind: median of three child processes. */
function linkCost(): number {
  const runs = [0, 1, 2].map(() => (JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'schemaLinkHost.ts')], { encoding: 'utf8' })) as { linkMs: number }).linkMs);
  return median(runs);
}

async function partA(): Promise<string[]> {
  const link = linkCost();
  const r = await fullChecks(CORPUS, FULL_RUNS);
  const col = (k: keyof FullCheckRun, c: keyof Took = 'wallMs') => median(r.runs.map((x) => x[k][c]));
  const best = (k: keyof FullCheckRun) => Math.min(...r.runs.map((x) => x[k].wallMs));
  const full = col('full');
  const schema = col('schema');
  const without = col('rest') - col('cachedSchema');
  const row = (label: string, k: keyof FullCheckRun, bold = false) => `| ${label} | ${bold ? `**${f1(col(k))}**` : f1(col(k))} | ${f1(best(k))} | ${f1(col(k, 'cpuMs'))} |`;
  return [
    '### a. Full check of bjw-s-labs-home-ops',
    '',
    `The corpus opened as \`check\` opens it (Kustomization builds, then HelmReleases whose chart is in it); ${r.applied} applied objects, ${r.judged} with a`,
    `schema (bundled Flux or built-in, or a CRD of the workspace or of a rendered chart), ${r.findings} schema findings. Each run reopens the corpus with`,
    `the first open's build cache (no kustomize run; every object body new, so the per-body verdict cache is empty) and every file parsed`,
    `(parsing is not the checks' part), garbage collected before each timing; ${FULL_RUNS} runs.`,
    '',
    '| step | wall ms, median | wall ms, best | CPU ms, median |',
    '|---|---|---|---|',
    row('checkModel, every rule, schema check cold', 'full'),
    row('checkSchemas alone, cold (on another fresh model)', 'schema', true),
    row('checkModel right after it (schema verdicts cached)', 'rest'),
    row('of which the cached schema pass', 'cachedSchema'),
    `| so checkModel without the schema check (median difference) | ${f1(without)} | | ${f1(col('rest', 'cpuMs') - col('cachedSchema', 'cpuMs'))} |`,
    `| once per process, before the first built-in kind: linking kube.generated.json (median of 3 child processes) | ${f1(link)} | | |`,
    '',
    `Added by the schema check: **${f1(schema)} ms** in the editor (the link is paid at the first check of the session), **${f1(schema + link)} ms**`,
    `for a CLI \`check\` (a fresh process pays the link too); full check with it ${f1(full)} ms, without it ${f1(without)} ms.`,
    `Target ≤ ${TARGET_FULL_MS} ms: ${met(schema <= TARGET_FULL_MS)} in the editor, ${met(schema + link <= TARGET_FULL_MS)} for the CLI.`,
    '',
  ];
}

async function partB(): Promise<string[]> {
  const { folder } = await openCorpus(CORPUS);
  const root = path.join(CORPORA, CORPUS);
  const targets: EditTarget[] = [
    { label: 'Flux Kustomization `ai/open-webui` (its `ks.yaml`), `spec.interval`', file: path.join(root, 'kubernetes/apps/ai/open-webui/ks.yaml'), from: 'interval: 1h', to: (i) => `interval: ${i + 2}m` },
    { label: 'Service `kube-api` (built-in kind; bjw-s has no Deployment document), `targetPort`', file: path.join(root, 'kubernetes/apps/kube-system/cilium/config/l3.yaml'), from: 'targetPort: 6443', to: (i) => `targetPort: ${7000 + i}` },
  ];
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (const t of targets) {
    const runs = await editChecks(folder, t, EDITS);
    const wall = runs.map((r) => r.schema.wallMs);
    const cpu = runs.map((r) => r.schema.cpuMs);
    const p95 = percentile(wall, 95);
    rows.push(`| ${t.label} | ${median(runs.map((r) => r.newBodies))} | ${f2(percentile(wall, 50))} | **${f2(p95)}** | ${f2(Math.max(...wall))} | ${f2(percentile(cpu, 50))} / ${f2(percentile(cpu, 95))} | ${f1(percentile(runs.map((r) => r.restMs), 50))} |`);
    verdicts.push(`${t.label.split(' (')[0].split(',')[0]}: ${met(p95 <= TARGET_EDIT_MS)} (p95 ${f2(p95)} ms)`);
  }
  return [
    '### b. Re-check after a one-document edit',
    '',
    `${EDITS} buffer edits of one document (each a new value), each followed by what the engine runs: the Kustomization builds the edit makes stale`,
    '(`Folder.refine`), then the checks on the new model, timed as checkSchemas on its own right after the model as the engine runs it (no forced',
    'collection before it: one left the collector\'s threads running through the timed pass), then checkModel. "New bodies": applied objects whose body',
    'the edit replaced (the per-body cache re-validates those): every object of the rebuilt Kustomization build, not only the edited one.',
    '',
    '| edited document | new bodies per edit (median) | schema check, wall p50 ms | wall p95 ms | wall max ms | CPU p50 / p95 ms | rest of the re-check, wall p50 ms |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Target ≤ ${TARGET_EDIT_MS} ms added to a one-document edit (p95): ${verdicts.join('; ')}.`,
    '',
  ];
}

async function partC(): Promise<string[]> {
  const root = path.join(CORPORA, CORPUS).split(path.sep).join('/');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-schema-bench-'));
  try {
    const cacheDir = path.join(tmp, 'charts');
    const { served, total } = fillCache(root, cacheDir);
    const folder = new Folder(root, diskHost, { sha256 }, { cache: new MemoryBuildCache(), charts: { cacheDir } });
    await folder.refine({ allowNetwork: false });
    await folder.refineHelm({});
    const files = [...folder.repo.workspace.files.keys()].sort();
    const kinds: { label: string; wanted: (kind: string, apiVersion: string) => boolean }[] = [
      { label: 'Flux Kustomizations', wanted: (k, v) => k === 'Kustomization' && v.startsWith('kustomize.toolkit.fluxcd.io/') },
      { label: 'HelmReleases (values completed from the chart where it is in the cache)', wanted: (k) => k === 'HelmRelease' },
      { label: 'built-in kinds (Service, PVC, HPA, RBAC, …; bjw-s has no Deployment document)', wanted: (k, v) => !!builtinSchema(`${v}/${k}`) },
    ];
    const rows: string[] = [];
    const all: Answer[] = [];
    for (const k of kinds) {
      const places = spread(files.flatMap((f) => placesIn(f, k.wanted)), PLACES_PER_KIND);
      const answers = timeCompletions(folder, places);
      all.push(...answers);
      const typed = answers.map((a) => a.typedMs);
      const again = answers.map((a) => a.againMs);
      const answered = answers.filter((a) => a.items > 0).length;
      const model = answers.map((a) => a.modelMs);
      const cpu = answers.map((a) => a.typedCpuMs);
      rows.push(`| ${k.label} | ${answers.length} (${answered} with items) | ${f1(percentile(typed, 50))} | **${f1(percentile(typed, 95))}** | ${f1(percentile(cpu, 50))} / ${f1(percentile(cpu, 95))} | ${f1(percentile(model, 50))} / ${f1(percentile(model, 95))} | ${f2(percentile(again, 50))} | ${f2(percentile(again, 95))} |`);
    }
    const p95 = percentile(all.map((a) => a.typedMs), 95);
    return [
      '### c. Completion latency',
      '',
      "As the engine answers a `completion` request (engine.ts: the request's buffer set on the folder, `Folder.assistModel`, then `schemaCompletion`",
      `with the folder's chart values), in the \`spec\` of ${CORPUS}'s documents, the corpus opened as the editor opens it with a chart cache`,
      `holding the shared charts (${served} of ${total} HelmReleases have their chart there). Places: a new line under a mapping key, a new line beside`,
      'a key, and after `key: ` with the value deleted, spread evenly over every such place. "Typed": the buffer just changed (the extension sends',
      'the document with the request) while the model is that of the text before, as in the editor after a keystroke: `assistModel` answers from',
      'that model when only this file changed and not in a way the answer could tell (assistUnchanged), else rebuilds it; "again": the same request at once.',
      '',
      '| documents | places | typed p50 ms | typed p95 ms | typed CPU p50 / p95 ms | of which the model (last or rebuilt) p50 / p95 ms | again p50 ms | again p95 ms |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `All places: typed p50 ${f1(percentile(all.map((a) => a.typedMs), 50))} ms, p95 ${f1(p95)} ms (CPU p95 ${f1(percentile(all.map((a) => a.typedCpuMs), 95))} ms); again p95 ${f2(percentile(all.map((a) => a.againMs), 95))} ms.`,
      `Target p95 ≤ ${TARGET_COMPLETION_MS} ms: ${met(p95 <= TARGET_COMPLETION_MS)} for the answer after a keystroke (typed), ${met(percentile(all.map((a) => a.againMs), 95) <= TARGET_COMPLETION_MS)} for the answer itself (again).`,
      '',
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function medianRun(runs: KubeconformRun[]): KubeconformRun {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
}

/** Why kubeconform flags an object validateObject passes, when every error it names is of one known kind. */
function theirReason(o: BulkObject, errors: string[]): string | undefined {
  const values = errors.map((e) => atPointer(o.body, e.slice(0, e.indexOf(': '))));
  if (values.every((v) => unknownValue(v) || (Array.isArray(v) && v.some(unknownValue)))) return 'a `${var}` (or SOPS `ENC[…]`) value, which validateObject leaves for the cluster to fill in';
  return undefined;
}

async function partD(bin: string): Promise<string[]> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-kubeconform-bench-'));
  try {
    const { objects, corpora, openMs } = await gatherObjects((m) => process.stderr.write(`${m}\n`));
    const schemaDir = path.join(tmp, 'schemas');
    const schemaFiles = writeJsonSchemas(schemaDir);
    const written = writeObjectFiles(path.join(tmp, 'objects'), objects.map((o) => o.body));
    const bytes = written.files.reduce((n, f) => n + fs.statSync(f).size, 0);
    // One object of each kind present: kubeconform's start and schema compilation without the bulk.
    const firsts = new Map<string, BulkObject>();
    for (const o of objects) if (!firsts.has(`${String(o.body.apiVersion)}/${String(o.body.kind)}`)) firsts.set(`${String(o.body.apiVersion)}/${String(o.body.kind)}`, o);
    const perKind = writeObjectFiles(path.join(tmp, 'per-kind'), [...firsts.values()].map((o) => o.body));

    const ours = ourFindings(objects);
    const validate = timeOurs(objects, OUR_RUNS);
    const fromFiles = timeOursFromFiles(written.files, 3);
    const fromFilesLibrary = timeOursFromFiles(written.files, 3, 'library');
    // The same objects as `kustomize build` prints them (block YAML), for both tools.
    const block = writeObjectFiles(path.join(tmp, 'block'), objects.map((o) => o.body), 'block');
    const blockBytes = block.files.reduce((b, f) => b + fs.statSync(f).size, 0);
    const fromBlock = timeOursFromFiles(block.files, 3);
    const fromBlockLibrary = timeOursFromFiles(block.files, 3, 'library');
    const kc = (n: number, skip?: string[]) => medianRun(Array.from({ length: KC_RUNS }, () => runKubeconform(bin, schemaDir, path.join(tmp, 'objects'), n, { written, skip })));
    const kc1 = kc(1);
    const kc2 = kc(2);
    const kcBlock = (n: number) => medianRun(Array.from({ length: KC_RUNS }, () => runKubeconform(bin, schemaDir, path.join(tmp, 'block'), n, { written: block })));
    const kcBlock1 = kcBlock(1);
    const kcBlock2 = kcBlock(2);
    const kcBlockBest = Math.min(kcBlock1.ms, kcBlock2.ms);
    const kinds = [...new Set(bundledKinds().map((k) => k.slice(k.lastIndexOf('/') + 1)))];
    const parseOnly = kc(1, kinds);
    const fixed = medianRun(Array.from({ length: KC_RUNS }, () => runKubeconform(bin, schemaDir, path.join(tmp, 'per-kind'), 1, { written: perKind })));
    const n = objects.length;
    const us = (ms: number, count = n) => f1((ms * 1000) / count);

    const agreement = compare(ours, kc2, written);
    const explained = new Map<string, number>();
    const unexplained: number[] = [];
    for (const i of agreement.theirsOnly) {
      const why = theirReason(objects[i], kc2.flagged.get(i)!);
      if (why) explained.set(why, (explained.get(why) ?? 0) + 1);
      else unexplained.push(i);
    }
    const where = (o: BulkObject) => `${o.corpus} \`${o.file}\` ${String(o.body.kind)} ${String((o.body.metadata as Record<string, unknown> | undefined)?.name ?? '')}`;
    const example = (i: number, errors: string[]) => `- ${where(objects[i])}: ${errors.slice(0, 2).map((e) => `\`${e.length > 160 ? `${e.slice(0, 160)}…` : e}\``).join('; ')}`;
    const bothFlagged = ours.map((f, i) => (f.length && kc2.flagged.has(i) ? i : -1)).filter((i) => i >= 0);

    return [
      '### d. Bulk, kubeconform-style: every corpus',
      '',
      `Every object of the ${corpora} shared corpora that has a bundled schema (Flux and built-in kinds), as the model holds it once the corpus is`,
      'opened as `check` opens it (applied objects as their Kustomization build gives them, the others as written; patch files left out; each body',
      `once): **${n} objects** of ${firsts.size} kinds (opening the corpora took ${(openMs / 1000).toFixed(0)} s, not counted). kubeconform ${kubeconformVersion(bin)}`,
      '(test/cluster/build.sh) reads them from',
      `${written.files.length} files (${(bytes / 2 ** 20).toFixed(1)} MB; up to 50 documents each, each document one line of JSON) with \`-strict\` and ${schemaFiles} JSON`,
      'schemas written from our bundles (bench/jsonSchemas.ts: same types, enums, patterns, bounds, required fields and unknown-field rule as',
      'validateObject; CEL rules cannot be said in JSON Schema and are left out). kubeconform times are wall time of the process (median of',
      `${KC_RUNS}): start, schema loading and compilation, reading, YAML parsing (twice per document: its reader parses each one for its kind`,
      "before a worker parses it again to validate) and validation. Ours: validateObject in this process, one thread, schemas already linked.",
      '',
      '| run | what the time includes | wall ms | wall µs per object | CPU ms | CPU µs per object |',
      '|---|---|---|---|---|---|',
      `| ours, first pass | validateObject only (bodies in memory), JIT cold | ${f1(validate.first.wallMs)} | ${us(validate.first.wallMs)} | ${f1(validate.first.cpuMs)} | ${us(validate.first.cpuMs)} |`,
      `| ours, warm | validateObject only, median of ${OUR_RUNS} passes | ${f1(validate.median.wallMs)} | **${us(validate.median.wallMs)}** | ${f1(validate.median.cpuMs)} | ${us(validate.median.cpuMs)} |`,
      `| ours from the files | read + parse with the product's YAML reader (${f1(fromFiles.parseMs)} ms wall of it) + validateObject | ${f1(fromFiles.wallMs)} | **${us(fromFiles.wallMs)}** | ${f1(fromFiles.cpuMs)} | ${us(fromFiles.cpuMs)} |`,
      `| ours from the files, the yaml library's parse alone (the reader before the quick parse) | read + parse (${f1(fromFilesLibrary.parseMs)} ms wall of it) + validateObject | ${f1(fromFilesLibrary.wallMs)} | ${us(fromFilesLibrary.wallMs)} | ${f1(fromFilesLibrary.cpuMs)} | ${us(fromFilesLibrary.cpuMs)} |`,
      `| kubeconform \`-n 1\` | process start, schemas, read, parse, validate | ${f1(kc1.ms)} | ${us(kc1.ms)} | ${f1(kc1.cpuMs)} | ${us(kc1.cpuMs)} |`,
      `| kubeconform \`-n 2\` | same, two workers | ${f1(kc2.ms)} | **${us(kc2.ms)}** | ${f1(kc2.cpuMs)} | ${us(kc2.cpuMs)} |`,
      `| kubeconform fixed cost | \`-n 1\` on one object of each of the ${firsts.size} kinds: start + compiling their schemas | ${f1(fixed.ms)} | – | ${f1(fixed.cpuMs)} | – |`,
      `| kubeconform \`-n 1\`, every kind skipped | start, read, parse (no schema, no validation) | ${f1(parseOnly.ms)} | ${us(parseOnly.ms)} | ${f1(parseOnly.cpuMs)} | ${us(parseOnly.cpuMs)} |`,
      '',
      `Per object, validation alone (CPU, which the machine's load leaves as it is): ours ${us(validate.median.cpuMs)} µs, kubeconform ≈ ${us(kc1.cpuMs - parseOnly.cpuMs)} µs`,
      `(\`-n 1\` minus the every-kind-skipped run, so schema compilation is in it too). Whole runs, wall: ours from the files ${us(fromFiles.wallMs)} µs vs`,
      `kubeconform \`-n 2\` ${us(kc2.ms)} µs and \`-n 1\` ${us(kc1.ms)} µs per object.`,
      `Target "faster per object": ${met(validate.median.wallMs < Math.min(kc1.ms, kc2.ms))} for validation in memory (${(Math.min(kc1.ms, kc2.ms) / validate.median.wallMs).toFixed(0)}× faster than kubeconform's faster whole run);`,
      `${met(fromFiles.wallMs < Math.min(kc1.ms, kc2.ms))} when ours also reads and parses the files (${(fromFiles.wallMs / Math.min(kc1.ms, kc2.ms)).toFixed(2)}× kubeconform's time; the YAML reader is ${((fromFiles.parseMs / fromFiles.wallMs) * 100).toFixed(0)} % of ours).`,
      '',
      `The same ${n} objects as block YAML (as \`kustomize build\` prints them; ${block.files.length} files, ${(blockBytes / 2 ** 20).toFixed(1)} MB), both tools reading the files:`,
      '',
      '| run | wall ms | wall µs per object | CPU ms | CPU µs per object |',
      '|---|---|---|---|---|',
      `| ours: read + parse (${f1(fromBlock.parseMs)} ms wall of it) + validateObject | ${f1(fromBlock.wallMs)} | **${us(fromBlock.wallMs)}** | ${f1(fromBlock.cpuMs)} | ${us(fromBlock.cpuMs)} |`,
      `| ours, the yaml library's parse alone (before the quick parse) | ${f1(fromBlockLibrary.wallMs)} | ${us(fromBlockLibrary.wallMs)} | ${f1(fromBlockLibrary.cpuMs)} | ${us(fromBlockLibrary.cpuMs)} |`,
      `| kubeconform \`-n 1\` | ${f1(kcBlock1.ms)} | ${us(kcBlock1.ms)} | ${f1(kcBlock1.cpuMs)} | ${us(kcBlock1.cpuMs)} |`,
      `| kubeconform \`-n 2\` | ${f1(kcBlock2.ms)} | ${us(kcBlock2.ms)} | ${f1(kcBlock2.cpuMs)} | ${us(kcBlock2.cpuMs)} |`,
      '',
      `Target "faster per object", block YAML read from the files: ${met(fromBlock.wallMs < kcBlockBest)} (${(fromBlock.wallMs / kcBlockBest).toFixed(2)}× kubeconform's faster run).`,
      '',
      `Flagged: ours ${agreement.both + agreement.oursOnly.length}, kubeconform ${agreement.both + agreement.theirsOnly.length} (its summary: ${kc2.summary.invalid} invalid, ${kc2.summary.errors} errors); both ${agreement.both},`,
      `only ours ${agreement.oursOnly.length}, only kubeconform ${agreement.theirsOnly.length}.`,
      ...[...explained].map(([why, count]) => `- only kubeconform, ${count}: ${why}.`),
      ...(unexplained.length ? ['- only kubeconform, not explained above:', ...unexplained.slice(0, 5).map((i) => `  ${example(i, kc2.flagged.get(i)!)}`)] : []),
      ...(agreement.oursOnly.length ? ['- only ours:', ...agreement.oursOnly.slice(0, 5).map((i) => `  ${example(i, ours[i].map((f) => `${f.path.join('.')}: ${f.message}`))}`)] : []),
      ...(bothFlagged.length ? ['', 'Flagged by both (first five, our finding):', ...bothFlagged.slice(0, 5).map((i) => example(i, ours[i].map((f) => `${f.path.join('.')}: ${f.message}`)))] : []),
      '',
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export async function run(): Promise<string> {
  // First: a missing kubeconform must stop the bench before minutes of other work.
  const bin = kubeconformBin();
  const loadBefore = os.loadavg()[0];
  // SCHEMA_BENCH_PARTS=d (say) runs only the parts named.
  const only = process.env.SCHEMA_BENCH_PARTS;
  const want = (part: string) => !only || only.includes(part);
  const parts = [want('a') ? await partA() : [], want('b') ? await partB() : [], want('c') ? await partC() : [], want('d') ? await partD(bin) : []];
  // Tails (p95) on this shared 2-core VM follow the other tenants' load more than this code.
  const load = `Load average (1 min) when the bench started: ${loadBefore.toFixed(1)}, when it ended: ${os.loadavg()[0].toFixed(1)}, on ${os.cpus().length} cores.`;
  return [
    '## Schema validation (issue 26)',
    '',
    'Command: `npm run bench -- schema` (needs kubeconform: `bash test/cluster/build.sh kubeconform`, which `make bench` runs through `make tools`;',
    '7–12 minutes here, most of it opening the 29 corpora for d; `SCHEMA_BENCH_PARTS=d` runs only the parts named).',
    `Targets: the schema check adds ≤ ${TARGET_FULL_MS} ms to a full check of ${CORPUS} and ≤ ${TARGET_EDIT_MS} ms to a one-document edit; completion`,
    `answers in ≤ ${TARGET_COMPLETION_MS} ms p95; a bulk run over every corpus is faster per object than kubeconform on the same machine.`,
    load,
    '',
    ...parts.flat(),
  ].join('\n');
}

if (require.main === module) void run().then((s) => process.stdout.write(s));
