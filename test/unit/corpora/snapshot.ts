/**
 * What a user sees of a shared corpus, reduced to lines a reviewer can read in a diff: clusters and
 * their roots, where every Kustomization and HelmRelease is placed (or that it is not applied), and
 * every finding's rule, severity, file and line. Each corpus is opened as a clone (origin = the
 * GitHub URL of its CORPUS.txt) on its default branch and on a feature branch, and built from its
 * roots down as the editor and `check` build it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { checkModel } from '../../../src/core/checks/index';
import { treeJson } from '../../../src/core/tree/treeData';
import { Folder } from '../../../src/engine/folder';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { diskHost } from '../../../src/node/fsHost';
import { CORPORA, corpusRemotes } from '../helpers';

export const SNAPSHOTS = path.join(__dirname, 'snapshots');
export const FEATURE_BRANCH = 'feature/edit';

export interface CorpusView {
  clusters: string[];
  kustomizations: string[];
  helmReleases: string[];
  unapplied: string[];
  findings: string[];
}

export interface CorpusSnapshot {
  corpus: string;
  /** `owner/name @ commit` and branch, from CORPUS.txt. */
  source: string;
  branch: string;
  /** On the default branch. */
  view: CorpusView;
  /**
   * Where the feature branch differs (lines only there, `+`, or only on the default branch, `-`),
   * each list with the reason in `featureReason`. Absent: the feature branch shows the same.
   */
  feature?: { added: Partial<CorpusView>; removed: Partial<CorpusView> };
  featureReason?: string;
  /** The reviewer's notes on the findings: why they are right, or which issue makes them wrong. */
  review?: string[];
}

export function corpusNames(): string[] {
  return fs
    .readdirSync(CORPORA)
    .filter((n) => fs.statSync(path.join(CORPORA, n)).isDirectory())
    .sort();
}

export function corpusInfo(name: string): { source: string; branch: string } {
  const text = fs.readFileSync(path.join(CORPORA, name, 'CORPUS.txt'), 'utf8');
  const field = (key: string) => new RegExp(`^${key}:[ \\t]*(\\S+)`, 'm').exec(text)?.[1];
  const source = field('source') ?? name;
  const commit = field('commit');
  return { source: commit ? `${source} @ ${commit.slice(0, 12)}` : source, branch: field('branch') ?? indexBranch(name) ?? 'main' };
}

/** The Branch column of the corpora's INDEX.md (older CORPUS.txt files do not name it). */
function indexBranch(name: string): string | undefined {
  const index = fs.readFileSync(path.join(CORPORA, 'INDEX.md'), 'utf8');
  for (const line of index.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells[1] === name && cells[3]) return cells[3];
  }
  return undefined;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The corpus opened as a clone with `branch` checked out and built from its roots down, as `check` builds it. */
export async function corpusFolder(name: string, branch: string, cache: MemoryBuildCache): Promise<{ folder: Folder; dir: string }> {
  const dir = path.join(CORPORA, name).split(path.sep).join('/');
  const folder = new Folder(dir, diskHost, { sha256, remotes: corpusRemotes(name), checkout: { branch } }, { cache });
  await folder.refine({ allowNetwork: false });
  // Then the HelmReleases whose chart is in the corpus (no chart cache: the machine's must not matter).
  await folder.refineHelm({});
  return { folder, dir };
}

/** The corpus as seen with `branch` checked out; `cache` is shared between the two branches' builds. */
export async function viewOf(name: string, branch: string, cache: MemoryBuildCache): Promise<CorpusView> {
  const { folder, dir } = await corpusFolder(name, branch, cache);
  const model = folder.model();
  const tree = treeJson(model);
  const rel = (p: string) => (p.startsWith(`${dir}/`) ? p.slice(dir.length + 1) : p);
  const at = (o: { kind: string; namespace: string; name: string; file: string; line: number }) => `${o.kind}/${o.namespace}/${o.name} ${o.file}:${o.line}`;
  return {
    clusters: tree.clusters.map((c) => `${c.name} ${at(c.root)}`).sort(),
    kustomizations: tree.kustomizations.map((k) => `${k.cluster}: ${at(k)}`).sort(),
    helmReleases: tree.helmReleases.map((h) => `${h.cluster}: ${at(h)}`).sort(),
    unapplied: tree.unapplied.map(at).sort(),
    findings: checkModel(model)
      .diagnostics.map((d) => `${d.severity} ${d.rule} ${rel(d.file)}:${d.range.start.line + 1}`)
      .sort(),
  };
}

const KEYS: (keyof CorpusView)[] = ['clusters', 'kustomizations', 'helmReleases', 'unapplied', 'findings'];

/** Lines of `b` not in `a` (as many times as they are extra). */
function minus(b: string[], a: string[]): string[] {
  const left = new Map<string, number>();
  for (const l of a) left.set(l, (left.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of b) {
    const n = left.get(l) ?? 0;
    if (n > 0) left.set(l, n - 1);
    else out.push(l);
  }
  return out;
}

export function featureDiff(main: CorpusView, feature: CorpusView): CorpusSnapshot['feature'] {
  const added: Partial<CorpusView> = {};
  const removed: Partial<CorpusView> = {};
  for (const k of KEYS) {
    const plus = minus(feature[k], main[k]);
    const less = minus(main[k], feature[k]);
    if (plus.length) added[k] = plus;
    if (less.length) removed[k] = less;
  }
  return Object.keys(added).length || Object.keys(removed).length ? { added, removed } : undefined;
}

export async function snapshotOf(name: string): Promise<CorpusSnapshot> {
  const { source, branch } = corpusInfo(name);
  const cache = new MemoryBuildCache();
  const view = await viewOf(name, branch, cache);
  const feature = featureDiff(view, await viewOf(name, FEATURE_BRANCH, cache));
  return { corpus: name, source, branch, view, ...(feature ? { feature } : {}) };
}

export function snapshotFile(name: string): string {
  return path.join(SNAPSHOTS, `${name}.json`);
}

export function readSnapshot(name: string): CorpusSnapshot | undefined {
  const file = snapshotFile(name);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as CorpusSnapshot) : undefined;
}

/** Writes a fresh snapshot, keeping the reviewer's notes of the one it replaces. */
export function writeSnapshot(fresh: CorpusSnapshot): void {
  const old = readSnapshot(fresh.corpus);
  const out: CorpusSnapshot = { ...fresh, ...(old?.review ? { review: old.review } : {}), ...(fresh.feature && old?.featureReason ? { featureReason: old.featureReason } : {}) };
  fs.writeFileSync(snapshotFile(fresh.corpus), `${JSON.stringify(out, null, 2)}\n`);
}
