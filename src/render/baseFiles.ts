/**
 * The source's files as a build is given them, and as the kustomize module keeps them between
 * builds (one set at a time, named by workspace, version and view): each workspace version's set
 * is made once; after an edit, from the last set with only the edited manifests read again; and
 * with what changed since the set of the same scope, which the module takes instead of the whole.
 */
import type { RepoModel } from '../core/model/graph';
import type { SourceView } from '../core/model/view';
import type { SourceTree } from '../core/flux/confine';
import type { Workspace } from '../core/workspace/workspace';
import type { MemFile } from '../engine/wasm/protocol';
import { fileContent, memDirs, memTree, sourceInputBudget, viewListing, type InputBudget } from './files';
import { stringify as stringifyYaml } from 'yaml';
import type { SourceFile } from '../core/yaml/document';
import { isKustomizationFile } from '../core/model/bootstrap';
import { asRecord, kustomizeConfigOf } from '../core/model/objects';
import { withoutFetchedInputs } from '../core/flux/fetchedInputs';

/** A source's files as the kustomize module keeps them between builds: named by workspace, its version and the view. */
export interface BaseFiles {
  key: string;
  /** `key` without the workspace version: equal scopes differ only by edits. */
  scope: string;
  files: MemFile[];
  tree: SourceTree;
  /** Files left out (too large), named if a build fails. */
  budget: InputBudget;
  /** What changed since the set of the same scope the instance may hold. */
  delta?: { from: string; files: MemFile[]; remove: string[] };
  /** For the next version's set (baseFiles): */
  workspace: Workspace;
  version: number;
  overrides: ReadonlyMap<string, string>;
  /** Every file of the view, those refused (alias bombs) or unreadable included: an edit may change that. */
  entries: readonly BaseEntry[];
  dirs: ReadonlySet<string>;
}

interface BaseEntry {
  path: string;
  real: string;
  data: MemFile['data'] | undefined;
  refused: boolean;
}

const workspaceIds = new WeakMap<Workspace, number>();
let lastWorkspaceId = 0;
let lastBase: BaseFiles | undefined;
let rebased = 0;

/** Manifests whose content changed since `from` (the version of the last set made), or all: folders or files came or went. */
interface ChangeLog {
  from: number;
  paths: Set<string>;
  all: boolean;
}
const changeLogs = new WeakMap<Workspace, ChangeLog>();

function changeLog(ws: Workspace): ChangeLog {
  let log = changeLogs.get(ws);
  if (!log) {
    const created: ChangeLog = (log = { from: -1, paths: new Set(), all: true });
    changeLogs.set(ws, created);
    ws.onChange((change) => {
      if (change.kind === 'file' && !created.all) created.paths.add(change.path);
      else {
        created.all = true;
        created.paths.clear();
      }
    });
  }
  return log;
}

export function baseFiles(model: RepoModel, view: SourceView): BaseFiles {
  const ws = model.workspace;
  let id = workspaceIds.get(ws);
  if (id === undefined) workspaceIds.set(ws, (id = ++lastWorkspaceId));
  const scope = `${id}|${view.key}`;
  const overrides = syntheticFiles(model);
  let key = `${scope}|${ws.version}`;
  if (lastBase?.scope === scope && lastBase.workspace === ws && lastBase.version === ws.version) {
    if (sameMap(lastBase.overrides, overrides)) return lastBase;
    // The same files with other inferred ones (a build started from the last model, before this
    // one): another set, under another key, so an instance holding the first is sent this one.
    key = `${key}|${++rebased}`;
  }
  const log = changeLog(ws);
  const previous = lastBase?.scope === scope && lastBase.workspace === ws && log.from === lastBase.version && !log.all && sameMap(lastBase.overrides, overrides) ? lastBase : undefined;
  const next = (previous && editedBase(previous, log.paths, key, overrides)) ?? wholeBase(ws, view, key, scope, overrides);
  if (lastBase?.scope === scope) {
    const before = new Map(lastBase.files.map((f) => [f.path, f.data]));
    const changed = next.files.filter((f) => !sameData(before.get(f.path), f.data));
    const now = new Set(next.files.map((f) => f.path));
    next.delta = { from: lastBase.key, files: changed, remove: [...before.keys()].filter((p) => !now.has(p)) };
  }
  log.from = ws.version;
  log.paths.clear();
  log.all = false;
  lastBase = next;
  return next;
}

function wholeBase(ws: Workspace, view: SourceView, key: string, scope: string, overrides: ReadonlyMap<string, string>): BaseFiles {
  const budget = sourceInputBudget(ws);
  const entries = viewListing(view).map(({ path: vpath, real }): BaseEntry => {
    const data = overrides.get(real) ?? fileContent(ws, real, ws.root, budget, vpath);
    return { path: vpath, real, data, refused: data !== undefined && refusedFile(ws, real) };
  });
  return fromEntries(ws, key, scope, overrides, entries, budget);
}

/**
 * The last set with only the manifests edited since read again (an edit in the editor: the view's
 * folders and files are the ones it had). Files other than manifests are read again as a whole set
 * reads them: the workspace does not follow their content. Undefined when files had to be left out
 * (which ones depends on every size), so the whole set is made instead.
 */
function editedBase(prev: BaseFiles, edited: ReadonlySet<string>, key: string, overrides: ReadonlyMap<string, string>): BaseFiles | undefined {
  if (prev.budget.skipped.length) return undefined;
  const ws = prev.workspace;
  const budget = sourceInputBudget(ws);
  const entries = prev.entries.map((e): BaseEntry => {
    if (!edited.has(e.real) && ws.files.has(e.real) && !overrides.has(e.real)) {
      if (e.data !== undefined && !budget.take(e.path, e.data.length)) return { ...e, data: undefined };
      return e;
    }
    const data = overrides.get(e.real) ?? fileContent(ws, e.real, ws.root, budget, e.path);
    return { ...e, data, refused: data !== undefined && refusedFile(ws, e.real) };
  });
  if (budget.skipped.length) return undefined;
  const sameFiles = entries.every((e, i) => (e.data === undefined) === (prev.entries[i].data === undefined) && e.refused === prev.entries[i].refused);
  return fromEntries(ws, key, prev.scope, overrides, entries, budget, sameFiles ? prev.dirs : undefined);
}

function fromEntries(ws: Workspace, key: string, scope: string, overrides: ReadonlyMap<string, string>, entries: BaseEntry[], budget: InputBudget, dirs?: ReadonlySet<string>): BaseFiles {
  const files: MemFile[] = [];
  for (const e of entries) if (e.data !== undefined && !e.refused) files.push({ path: e.path, data: e.data });
  const folders = dirs ?? memDirs(files);
  return { key, scope, files, tree: memTree(files, folders), budget, workspace: ws, version: ws.version, overrides, entries, dirs: folders };
}

/** Whether two sets of inferred files (path → text) are the same. */
export function sameMap(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function sameData(a: MemFile['data'] | undefined, b: MemFile['data']): boolean {
  if (a === undefined) return false;
  if (typeof a === 'string' || typeof b === 'string') return typeof a === typeof b && a === b;
  return Buffer.compare(a, b) === 0;
}

/**
 * Files whose objects the model inferred (a placeholder gotk-sync.yaml): built with the inferred
 * objects, so the render shows what the bootstrapped cluster applies. Objects a FluxInstance or a
 * ResourceSet generates (they have an origin) live in the cluster only: their files stay as written.
 */
export function syntheticFiles(model: RepoModel): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of model.allObjects) if (o.synthetic && !o.origin) out.set(o.doc.file.path, o.doc.file.text);
  for (const file of model.workspace.files.values()) {
    const text = isKustomizationFile(file.path) ? withoutFetchedText(file) : undefined;
    if (text !== undefined) out.set(file.path, text);
  }
  return out;
}

/** A kustomization whose generators download inputs, as the build is given it (fetchedInputs.ts); once per parsed file. */
function withoutFetchedText(file: SourceFile): string | undefined {
  if (fetchedTexts.has(file)) return fetchedTexts.get(file);
  const config = asRecord(kustomizeConfigOf(file)?.value);
  const rewritten = config && file.text.includes('http') ? withoutFetchedInputs(config) : undefined;
  const text = rewritten && stringifyYaml(rewritten, { lineWidth: 0 });
  fetchedTexts.set(file, text);
  return text;
}

const fetchedTexts = new WeakMap<SourceFile, string | undefined>();

/**
 * A manifest whose aliases the workspace refused to expand (alias bombs, self-referencing or
 * excessive aliases): no build is given it, since kustomize's YAML parser would expand them and
 * exhaust the engine's memory. A build reading one fails as reading a missing file; the file itself
 * carries the yaml-syntax finding.
 */
function refusedFile(ws: Workspace, real: string): boolean {
  const file = ws.files.get(real);
  return !!file && isParsedWithAliasProblem(file);
}

function isParsedWithAliasProblem(file: { text: string; docs: readonly { problems: readonly { message: string }[] }[] }): boolean {
  // Only a file with aliases can hold one; the rest is not parsed for this.
  if (!file.text.includes('*')) return false;
  return file.docs.some((d) => d.problems.some((p) => /\balias|\banchors\b/i.test(p.message)));
}
