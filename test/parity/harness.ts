/**
 * Build parity: for every Kustomization the model places in a cluster, `flux build kustomization
 * --dry-run` (the official CLI, test/cluster/build.sh) against our `gitops-preview build ks`.
 *
 * Each corpus is copied as a user's clone (git init + origin remote from CORPUS.txt). Clusters are
 * walked from their root, parents first, so each child's Kustomization handed to flux is the one
 * its parent's *flux* build rendered (substitutions, patches and namespaces applied), as the
 * controller would see it in the cluster; a child that the parent's build does not produce falls
 * back to its own file. `substituteFrom` ConfigMaps/Secrets (flux --dry-run cannot read them) are
 * looked up among what flux built so far in that cluster, else in the repository, and inlined into
 * `postBuild.substitute` in Flux's precedence order.
 *
 * Our side runs in-process with one model per corpus, through the same functions `build ks` runs
 * after picking the node (renderKustomization + formatObjects); the integration test checks that
 * this equals the CLI's output on a sample.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { formatObjects } from '../../src/cli/commands/build';
import { nodeEngine, openRefined } from '../../src/engine/node';
import { wasmModule } from '../../src/engine/wasm/pool';
import type { ClusterModel, KustomizationNode, RepoModel } from '../../src/core/model/graph';
import type { SourceView } from '../../src/core/model/view';
import { renderKustomization, type RenderOptions } from '../../src/render/index';
import { canonical, diffBuilds, isIdentical, objectKey, parseStream, SECRET_VALUE_MARK, type BuildDiff, type Obj } from './normalize';
import { classify } from './classify';

export type Outcome = 'identical' | 'differ' | 'only-flux' | 'only-ours' | 'neither' | 'external';

export interface Entry {
  corpus: string;
  cluster: string;
  namespace: string;
  name: string;
  /** spec.path inside the source artifact. */
  path: string;
  outcome: Outcome;
  /** Where the Kustomization handed to flux came from. */
  input: 'root-file' | 'parent-build' | 'own-file';
  /** The parent-rendered spec differs from the one in the Kustomization's own file. */
  inputSpecDiffers: boolean;
  /** The spec fields that differ (`spec.patches`, …), when inputSpecDiffers. */
  inputFields: string[];
  /**
   * When the builds do not agree and the input differs: our build given flux's input (the
   * Kustomization as the parent's flux build rendered it, substituteFrom inlined), against flux.
   * `identical` means the renderer agrees and only the model's reading of the child differs.
   */
  givenInput?: { outcome: Outcome; diff?: BuildDiff; oursError?: string };
  notes: string[];
  fluxError?: string;
  oursError?: string;
  diff?: BuildDiff;
  causes: string[];
  /** The exact flux command line (paths inside the temporary clone). */
  fluxCommand: string[];
  /** Objects each side built (0 when it failed). */
  fluxObjects: number;
  oursObjects: number;
  /** Time of each build alone (not counting the wait for a free slot). */
  fluxMs: number;
  oursMs: number;
}

export interface Tools {
  flux: string;
  kustomize: string;
  helm?: string;
}

export interface CorpusOptions {
  tools: Tools;
  /** Concurrent builds (flux and ours each count one). */
  parallelism: number;
  /** Temporary work folder (clones, Kustomization files, staged artifacts). */
  workDir: string;
  /** Only these `cluster/namespace/name` ids (and the parents needed to reach them). */
  only?: (id: string) => boolean;
  timeoutMs?: number;
}

export function entryId(cluster: string, namespace: string, name: string): string {
  return `${cluster}/${namespace}/${name}`;
}

/** A user's clone of a corpus: the files, `git init`, origin = the repository CORPUS.txt names. */
export function prepareClone(corpusDir: string, dest: string): string {
  const meta = fs.readFileSync(path.join(corpusDir, 'CORPUS.txt'), 'utf8');
  const source = /^source:\s*(\S+)/m.exec(meta)?.[1];
  if (!source) throw new Error(`${corpusDir}/CORPUS.txt: no 'source: owner/name' line`);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.cpSync(corpusDir, dest, { recursive: true });
  fs.rmSync(path.join(dest, 'CORPUS.txt'));
  runSync('chmod', ['-R', 'u+w', dest]);
  runSync('git', ['init', '-q', dest]);
  runSync('git', ['-C', dest, 'remote', 'add', 'origin', `https://github.com/${source}.git`]);
  return dest;
}

function runSync(cmd: string, args: string[]): void {
  const { status, stderr } = spawnSync(cmd, args, { encoding: 'utf8' });
  if (status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${stderr}`);
}

class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

function runFlux(bin: string, args: string[], cwd: string, timeoutMs: number): Promise<{ ok: true; stdout: string } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    execFile(
      bin,
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024, env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), KUBECONFIG: '/dev/null' } },
      (err, stdout, stderr) => {
        if (err) resolve({ ok: false, error: (stderr || err.message).trim() });
        else resolve({ ok: true, stdout });
      },
    );
  });
}

/** Copies an artifact the model sees through a view (an ArtifactGenerator's copy rules) to disk. */
function materialize(view: SourceView, dest: string): void {
  const walk = (vdir: string) => {
    const info = view.listDir(vdir);
    if (!info) return;
    fs.mkdirSync(path.join(dest, vdir), { recursive: true });
    for (const [name, real] of info.files) fs.copyFileSync(real, path.join(dest, vdir, name));
    for (const d of info.dirs) walk(vdir ? `${vdir}/${d}` : d);
  };
  walk('');
}

/** ConfigMap/Secret data as the API server would hold it; Secret values replaced by the mark. */
function dataOf(obj: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (src: unknown, secret: boolean) => {
    if (!src || typeof src !== 'object') return;
    for (const [k, v] of Object.entries(src as Obj)) out[k] = secret ? SECRET_VALUE_MARK : String(v ?? '');
  };
  if (obj.kind === 'Secret') {
    put(obj.data, true);
    put(obj.stringData, true);
  } else put(obj.data, false);
  return out;
}

/**
 * kustomize-controller's variables: substituteFrom in order (later wins), then postBuild.substitute
 * over them; newlines removed from values as the controller does. Returns notes on what was missing.
 */
export function inlineSubstituteFrom(ks: Obj, lookup: (kind: string, name: string) => { obj: Obj; from: string } | undefined): string[] {
  const pb = ks.spec?.postBuild;
  if (!pb || !Array.isArray(pb.substituteFrom)) return [];
  const notes: string[] = [];
  const vars: Record<string, string> = {};
  for (const ref of pb.substituteFrom as Obj[]) {
    const found = lookup(String(ref?.kind ?? ''), String(ref?.name ?? ''));
    if (!found) {
      notes.push(`substituteFrom ${ref?.kind}/${ref?.name}${ref?.optional ? ' (optional)' : ''} not found`);
      continue;
    }
    if (found.from !== 'flux-build') notes.push(`substituteFrom ${ref.kind}/${ref.name} taken from ${found.from}`);
    for (const [k, v] of Object.entries(dataOf(found.obj))) vars[k] = v.replace(/\n/g, '');
  }
  for (const [k, v] of Object.entries((pb.substitute as Obj) ?? {})) vars[k] = String(v ?? '').replace(/\n/g, '');
  pb.substitute = vars;
  delete pb.substituteFrom;
  return notes;
}

interface CorpusContext {
  corpus: string;
  root: string;
  model: RepoModel;
  opts: CorpusOptions;
  limiter: Limiter;
  renderOpts: RenderOptions;
  artifacts: Map<string, string>;
  seq: number;
}

function sourceRootOf(ctx: CorpusContext, view: SourceView): string {
  if (view.key === `ws:${ctx.model.workspace.root}`) return ctx.root;
  let dir = ctx.artifacts.get(view.key);
  if (!dir) {
    dir = path.join(ctx.opts.workDir, 'artifacts', createHash('sha256').update(view.key).digest('hex').slice(0, 12));
    fs.rmSync(dir, { recursive: true, force: true });
    materialize(view, dir);
    ctx.artifacts.set(view.key, dir);
  }
  return dir;
}

function firstLine(s: string): string {
  const lines = s.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.slice(0, 3).join(' | ').slice(0, 600);
}

async function buildOurs(ctx: CorpusContext, node: KustomizationNode): Promise<{ ok: true; objects: Obj[] } | { ok: false; error: string }> {
  const r = await renderKustomization(ctx.model, node, ctx.renderOpts);
  if (!r.ok) return { ok: false, error: r.error.message };
  return { ok: true, objects: parseStream(formatObjects(r.value.objects, ctx.model.workspace.root)) };
}

async function visit(ctx: CorpusContext, cluster: ClusterModel, node: KustomizationNode, given: { obj: Obj; input: Entry['input'] }, pool: Map<string, Obj>, wanted: Set<KustomizationNode> | undefined, out: Entry[]): Promise<void> {
  const namespace = node.applied.namespace ?? 'default';
  const name = node.applied.name;
  const ksObj = structuredClone(given.obj);
  // In a cluster the object always has a namespace (a root written without one lands in `default`).
  ksObj.metadata = { ...(ksObj.metadata ?? {}), namespace };
  const entry: Entry = {
    corpus: ctx.corpus,
    cluster: cluster.name,
    namespace,
    name,
    path: node.path,
    outcome: 'neither',
    input: given.input,
    inputSpecDiffers: false,
    inputFields: [],
    notes: [],
    causes: [],
    fluxCommand: [],
    fluxObjects: 0,
    oursObjects: 0,
    fluxMs: 0,
    oursMs: 0,
  };
  const ownSpec = (node.applied.object.body.spec ?? {}) as Obj;
  const givenSpec = (ksObj.spec ?? {}) as Obj;
  const specKeys = [...new Set([...Object.keys(ownSpec), ...Object.keys(givenSpec)])].filter((k) => canonical(ownSpec[k]) !== canonical(givenSpec[k]));
  if (specKeys.length) {
    entry.inputSpecDiffers = true;
    entry.inputFields = specKeys.sort().map((k) => `spec.${k}`);
    entry.notes.push(`parent's build renders spec.${specKeys.sort().join(', spec.')} differently from the Kustomization's own file`);
  }
  entry.notes.push(
    ...inlineSubstituteFrom(ksObj, (kind, refName) => {
      const hit = pool.get(`${kind}/${namespace}/${refName}`);
      if (hit) return { obj: hit, from: 'flux-build' };
      // Several clusters often hold a same-named ConfigMap: the one nearest the Kustomization's file.
      const candidates = ctx.model.allObjects.filter((o) => o.kind === kind && o.name === refName && (o.namespace === namespace || o.namespace === undefined) && !ctx.model.patchFiles.has(o.file));
      const near = node.applied.object.file;
      const shared = (p: string) => {
        let i = 0;
        while (i < p.length && p[i] === near[i]) i++;
        return i;
      };
      const file = candidates.sort((a, b) => shared(b.file) - shared(a.file))[0];
      return file ? { obj: file.body, from: `repo file ${path.relative(ctx.root, file.file)}` } : undefined;
    }),
  );

  let fluxObjects: Obj[] | undefined;
  if (node.source.kind !== 'view') {
    entry.outcome = 'external';
    entry.notes.push(`source ${node.source.description} is not in the repository`);
  } else {
    const srcRoot = sourceRootOf(ctx, node.source.view);
    const ksFile = path.join(ctx.opts.workDir, 'ks', `${ctx.seq++}-${name}.yaml`);
    fs.mkdirSync(path.dirname(ksFile), { recursive: true });
    fs.writeFileSync(ksFile, stringifyYaml(ksObj, { lineWidth: 0 }));
    // spec.path as the parent's build rendered it (it may hold substituted variables), confined to the source.
    const rendered = typeof ksObj.spec?.path === 'string' ? path.resolve(srcRoot, ksObj.spec.path.replace(/^\/+/, '')) : undefined;
    const fluxPath = rendered && (rendered === srcRoot || rendered.startsWith(srcRoot + path.sep)) ? rendered : path.join(srcRoot, node.path);
    const args = ['build', 'kustomization', name, '-n', namespace, '--path', fluxPath, '--kustomization-file', ksFile, '--dry-run', '--strict-substitute', '--in-memory-build'];
    entry.fluxCommand = [ctx.opts.tools.flux, ...args];
    const wantHere = !wanted || wanted.has(node);
    const timed = async <T>(fn: () => Promise<T>, set: (ms: number) => void): Promise<T> => {
      const t0 = Date.now();
      try {
        return await fn();
      } finally {
        set(Date.now() - t0);
      }
    };
    const [flux, ours] = await Promise.all([
      ctx.limiter.run(() => timed(() => runFlux(ctx.opts.tools.flux, args, srcRoot, ctx.opts.timeoutMs ?? 120_000), (ms) => (entry.fluxMs = ms))),
      wantHere ? ctx.limiter.run(() => timed(() => buildOurs(ctx, node), (ms) => (entry.oursMs = ms))) : Promise.resolve(undefined),
    ]);
    if (flux.ok) {
      try {
        fluxObjects = parseStream(flux.stdout);
      } catch (err) {
        entry.fluxError = `flux output: ${(err as Error).message}`;
      }
    } else entry.fluxError = firstLine(flux.error);
    entry.fluxObjects = fluxObjects?.length ?? 0;
    entry.oursObjects = ours?.ok ? ours.objects.length : 0;
    for (const o of fluxObjects ?? []) if (o.kind === 'ConfigMap' || o.kind === 'Secret') pool.set(objectKey(o), o);
    if (ours && !ours.ok) entry.oursError = firstLine(ours.error);
    if (fluxObjects && ours?.ok) {
      entry.diff = diffBuilds(fluxObjects, ours.objects);
      entry.outcome = isIdentical(entry.diff) ? 'identical' : 'differ';
    } else if (ours) entry.outcome = fluxObjects ? 'only-flux' : ours.ok ? 'only-ours' : 'neither';
    if (wantHere && entry.inputSpecDiffers && entry.outcome !== 'identical') {
      const given = await ctx.limiter.run(() => buildOurs(ctx, withInput(node, ksObj, path.relative(srcRoot, fluxPath).split(path.sep).join('/'))));
      entry.givenInput = { outcome: 'neither' };
      if (!given.ok) entry.givenInput.oursError = firstLine(given.error);
      if (fluxObjects && given.ok) {
        entry.givenInput.diff = diffBuilds(fluxObjects, given.objects);
        entry.givenInput.outcome = isIdentical(entry.givenInput.diff) ? 'identical' : 'differ';
      } else entry.givenInput.outcome = fluxObjects ? 'only-flux' : given.ok ? 'only-ours' : 'neither';
    }
    if (wantHere) {
      entry.causes = classify(entry);
      out.push(entry);
    }
  }
  if (entry.outcome === 'external' && (!wanted || wanted.has(node))) out.push(entry);

  await Promise.all(
    node.children
      .filter((c) => c !== node && (!wanted || wanted.has(c)))
      .map((child) => {
        const cns = child.applied.namespace ?? 'default';
        const rendered = fluxObjects?.find((o) => o.kind === 'Kustomization' && o.metadata?.name === child.applied.name && (o.metadata?.namespace ?? 'default') === cns);
        return visit(ctx, cluster, child, rendered ? { obj: rendered, input: 'parent-build' } : { obj: child.applied.object.body, input: 'own-file' }, pool, wanted, out);
      }),
  );
}

/**
 * `node` as the controller gets it from its parent's build: the spec flux was handed (patches,
 * substitution and namespaces applied, substituteFrom inlined) instead of the model's reading of
 * the child's file. Lets the harness tell a renderer difference from an input difference.
 */
function withInput(node: KustomizationNode, ksObj: Obj, relPath: string): KustomizationNode {
  const object = { ...node.applied.object, body: ksObj };
  // No parent: the values handed over are already substituted by the parent's build.
  const applied = { ...node.applied, object, appliedBy: undefined };
  const targetNamespace = typeof ksObj.spec?.targetNamespace === 'string' && ksObj.spec.targetNamespace ? ksObj.spec.targetNamespace : undefined;
  return { ...node, applied, targetNamespace, inheritedSubstitute: undefined, path: relPath };
}

/** The nodes to build: the selected ones and every ancestor on the way from the root. */
function wantedNodes(cluster: ClusterModel, only: (id: string) => boolean): Set<KustomizationNode> {
  const want = new Set<KustomizationNode>();
  const walk = (n: KustomizationNode, trail: KustomizationNode[], seen: Set<KustomizationNode>) => {
    if (seen.has(n)) return;
    seen.add(n);
    if (only(entryId(cluster.name, n.applied.namespace ?? 'default', n.applied.name))) for (const t of [...trail, n]) want.add(t);
    for (const c of n.children) walk(c, [...trail, n], seen);
  };
  walk(cluster.root, [], new Set());
  return want;
}

export interface CorpusResult {
  entries: Entry[];
  /** Kustomization documents of the repository that the model places in no cluster. */
  unplaced: string[];
}

export async function runCorpus(corpusDir: string, opts: CorpusOptions): Promise<CorpusResult> {
  const corpus = path.basename(corpusDir);
  // Without the module every build of ours fails alike; say so once instead of measuring that.
  const compiled = await wasmModule('kustomize').compile();
  if (!compiled.ok) throw new Error(compiled.message);
  fs.mkdirSync(opts.workDir, { recursive: true });
  const root = prepareClone(corpusDir, path.join(opts.workDir, 'clone'));
  // Our side reads the repository as the editor and the CLI do: every child as its parent's build
  // produces it (the engine's refined model), with a build cache of this run's own.
  const engines: { dispose(): void }[] = [];
  const open = async () => {
    const engine = nodeEngine({ debounceMs: 0 });
    engines.push(engine);
    await openRefined(engine, [root], { storageDir: path.join(opts.workDir, 'builds') });
    return engine.models()[0];
  };
  let model = await open();
  // A placeholder gotk-sync.yaml gets the objects `flux bootstrap` would write, on disk for both sides.
  const synthetic = model.allObjects.filter((o) => o.synthetic && !o.origin).map((o) => o.doc.file);
  if (synthetic.length) {
    for (const f of new Set(synthetic)) fs.writeFileSync(f.path, f.text);
    model = await open();
  }
  const ctx: CorpusContext = {
    corpus,
    root: model.workspace.root,
    model,
    opts,
    limiter: new Limiter(opts.parallelism),
    renderOpts: { allowNetwork: true, strictSubstitution: true, timeoutMs: opts.timeoutMs ?? 120_000, env: process.env },
    artifacts: new Map(),
    seq: 0,
  };
  const out: Entry[] = [];
  for (const cluster of model.clusters) {
    const wanted = opts.only ? wantedNodes(cluster, opts.only) : undefined;
    if (wanted && wanted.size === 0) continue;
    await visit(ctx, cluster, cluster.root, { obj: cluster.root.applied.object.body, input: 'root-file' }, new Map(), wanted, out);
  }
  out.sort((a, b) => entryId(a.cluster, a.namespace, a.name).localeCompare(entryId(b.cluster, b.namespace, b.name)));
  const unplaced = model.unapplied.filter((o) => o.kind === 'Kustomization' && o.fluxKind === 'Kustomization').map((o) => `${path.relative(ctx.root, o.file)}: ${o.namespace ?? ''}/${o.name}`);
  for (const e of engines) e.dispose();
  return { entries: out, unplaced };
}

export interface Summary {
  corpus: string;
  /** Flux Kustomization documents the model places in no cluster (not built by either side). */
  unplaced: number;
  kustomizations: number;
  external: number;
  bothBuild: number;
  identical: number;
  differ: number;
  onlyFlux: number;
  onlyOurs: number;
  neither: number;
  /**
   * With every child built from the spec its parent's flux build renders (our renderer given flux's
   * input where the model's reading differs): built by both, and identical. What the model's
   * change to read children from their parent's build should reach.
   */
  bothBuildGivenInput: number;
  identicalGivenInput: number;
}

/** The outcome with our build given flux's input (the entry's own outcome when that was not needed). */
export function givenOutcome(e: Entry): Outcome {
  return e.givenInput?.outcome ?? e.outcome;
}

function isBoth(o: Outcome): boolean {
  return o === 'identical' || o === 'differ';
}

export function summarize(corpus: string, result: CorpusResult): Summary {
  const entries = result.entries;
  const n = (o: Outcome) => entries.filter((e) => e.outcome === o).length;
  return {
    corpus,
    unplaced: result.unplaced.length,
    kustomizations: entries.length,
    external: n('external'),
    bothBuild: n('identical') + n('differ'),
    identical: n('identical'),
    differ: n('differ'),
    onlyFlux: n('only-flux'),
    onlyOurs: n('only-ours'),
    neither: n('neither'),
    bothBuildGivenInput: entries.filter((e) => isBoth(givenOutcome(e))).length,
    identicalGivenInput: entries.filter((e) => givenOutcome(e) === 'identical').length,
  };
}

export function defaultWorkDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-parity-'));
}
