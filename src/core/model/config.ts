import type { Workspace } from '../workspace/workspace';
import type { PathSegment } from '../yaml/document';
import { RULES, type Severity } from '../checks/types';
import { asArray, asRecord } from './objects';
import { normalizeVirtual } from './view';

/** The repository's own GitOps Preview settings file, read by the editor and by `check` in CI. */
export const CONFIG_FILE = '.gitops-preview.yaml';

/** A source key as the settings write it: `Kind/namespace/name`. */
const SOURCE_KEY = /^[A-Za-z]+\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export interface ConfigProblem {
  readonly message: string;
}

/**
 * Source roots from `.gitops-preview.yaml` (`sourceRoots: {Kind/namespace/name: folder}`), then
 * from the editor setting `gitopsPreview.sourceRoots` (which wins). Folders are relative to the
 * workspace root and must stay inside it; entries that do not are left out.
 */
export function configuredSourceRoots(ws: Workspace, setting: Readonly<Record<string, string>> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const add = (entries: Record<string, unknown> | undefined) => {
    for (const [key, folder] of Object.entries(entries ?? {})) {
      if (!SOURCE_KEY.test(key) || typeof folder !== 'string') continue;
      const normalized = normalizeVirtual(folder);
      if (normalized !== undefined) out.set(key, normalized);
    }
  };
  add(asRecord(asRecord(ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0]?.value)?.sourceRoots));
  add(setting);
  return out;
}

/** Mistakes in `.gitops-preview.yaml`'s `sourceRoots`, for `check` to report. */
export function sourceRootProblems(ws: Workspace): { key: string; message: string }[] {
  const roots = asRecord(asRecord(ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0]?.value)?.sourceRoots);
  const out: { key: string; message: string }[] = [];
  for (const [key, folder] of Object.entries(roots ?? {})) {
    if (!SOURCE_KEY.test(key)) out.push({ key, message: `'${key}' is not a source key: write Kind/namespace/name, e.g. OCIRepository/flux-system/apps.` });
    else if (typeof folder !== 'string') out.push({ key, message: `The source root of '${key}' must be a folder path (a string).` });
    else if (normalizeVirtual(folder) === undefined) out.push({ key, message: `The source root '${folder}' of '${key}' points outside the repository.` });
    else if (normalizeVirtual(folder) !== '' && !ws.hasDir(`${ws.root}/${normalizeVirtual(folder)}`)) out.push({ key, message: `The source root '${folder}' of '${key}' is not a folder of this repository.` });
  }
  return out;
}

/** What `.gitops-preview.yaml` says about findings: per-rule severities and files not to report. */
export interface RepositorySettings {
  readonly rules: ReadonlyMap<string, Severity | 'off'>;
  /** Globs (gitignore syntax, relative to the repository root). */
  readonly ignore: readonly string[];
  /** Clusters declared for layouts no reader recognises; when any is valid, they are the clusters. */
  readonly clusters: readonly ConfiguredCluster[];
  /** Entries not understood, at their YAML path, for config-invalid. */
  readonly problems: readonly { path: PathSegment[]; message: string }[];
}

/** `clusters: [{name, root}]`: `root` is a folder (synced as `flux bootstrap --path` would) or a file holding the root Kustomization. */
export interface ConfiguredCluster {
  readonly name: string;
  /** Relative to the repository root, normalised. */
  readonly root: string;
  readonly rootIsFile: boolean;
  /** Index in the `clusters` list, for its YAML path. */
  readonly index: number;
}

const KNOWN_KEYS = ['sourceRoots', 'rules', 'ignore', 'clusters', 'bootstrap'];
const SETTINGS = ['error', 'warning', 'info', 'off'];

export function repositorySettings(ws: Workspace): RepositorySettings {
  const doc = ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0];
  const value = asRecord(doc?.value);
  const rules = new Map<string, Severity | 'off'>();
  const ignore: string[] = [];
  const problems: { path: PathSegment[]; message: string }[] = [];
  const clusters: ConfiguredCluster[] = [];
  if (!value) return { rules, ignore, clusters, problems };
  for (const key of Object.keys(value)) {
    if (!KNOWN_KEYS.includes(key)) problems.push({ path: [key], message: `'${key}' is not a setting of ${CONFIG_FILE}: it knows ${KNOWN_KEYS.join(', ')}.` });
  }
  const ruleEntries = value.rules;
  if (ruleEntries !== undefined && !asRecord(ruleEntries)) problems.push({ path: ['rules'], message: '`rules` must map rule ids to error, warning, info or off.' });
  for (const [rule, setting] of Object.entries(asRecord(ruleEntries) ?? {})) {
    if (!Object.prototype.hasOwnProperty.call(RULES, rule)) problems.push({ path: ['rules', rule], message: `'${rule}' is not a rule: it knows ${Object.keys(RULES).join(', ')}.` });
    else if (rule === 'config-invalid') problems.push({ path: ['rules', rule], message: 'config-invalid reports this file itself and cannot be changed here.' });
    else if (typeof setting !== 'string' || !SETTINGS.includes(setting)) problems.push({ path: ['rules', rule], message: `The setting of '${rule}' must be error, warning, info or off.` });
    else rules.set(rule, setting as Severity | 'off');
  }
  if (value.ignore !== undefined && !Array.isArray(value.ignore)) problems.push({ path: ['ignore'], message: '`ignore` must be a list of file globs (gitignore syntax, relative to the repository root).' });
  asArray(value.ignore).forEach((g, i) => {
    if (typeof g === 'string' && g.trim()) ignore.push(g);
    else problems.push({ path: ['ignore', i], message: 'An `ignore` entry must be a file glob (a string).' });
  });
  clusters.push(...configuredClusters(ws, value.clusters, problems));
  return { rules, ignore, clusters, problems };
}

function configuredClusters(ws: Workspace, entries: unknown, problems: { path: PathSegment[]; message: string }[]): ConfiguredCluster[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) {
    problems.push({ path: ['clusters'], message: '`clusters` must be a list of {name, root} entries (root: a folder or file relative to the repository root).' });
    return [];
  }
  const out: ConfiguredCluster[] = [];
  const names = new Set<string>();
  entries.forEach((entry, index) => {
    const e = asRecord(entry);
    const name = e?.name;
    const root = e?.root;
    if (typeof name !== 'string' || !name.trim()) return problems.push({ path: ['clusters', index], message: 'A `clusters` entry needs a `name` (a string).' });
    if (names.has(name)) return problems.push({ path: ['clusters', index, 'name'], message: `Cluster '${name}' is declared twice.` });
    if (typeof root !== 'string') return problems.push({ path: ['clusters', index], message: `Cluster '${name}' needs a \`root\`: the folder Flux syncs first, or the file holding the root Kustomization.` });
    const rel = normalizeVirtual(root);
    if (rel === undefined) return problems.push({ path: ['clusters', index, 'root'], message: `The root '${root}' of cluster '${name}' points outside the repository.` });
    const abs = rel ? `${ws.root}/${rel}` : ws.root;
    const rootIsFile = ws.files.has(abs);
    if (!rootIsFile && !ws.hasDir(abs)) return problems.push({ path: ['clusters', index, 'root'], message: `The root '${root}' of cluster '${name}' is not a file or folder of this repository.` });
    names.add(name);
    out.push({ name, root: rel, rootIsFile, index });
  });
  return out;
}
