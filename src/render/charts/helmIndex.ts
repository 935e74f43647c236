/**
 * An HTTP HelmRepository's `index.yaml`, and the chart version source-controller picks from it:
 * the entry whose version is the text asked for, else the newest satisfying the constraint (ties
 * to the newest `created`), and its package URL resolved against the repository URL as helm does.
 */
import { parse } from 'yaml';
import { getOwn } from '../../core/safeRecord';
import { newestMatching } from './semver';

export interface IndexEntry {
  version: string;
  urls: string[];
  /** Hex sha256 of the package, when the index gives it. */
  digest?: string;
  created?: string;
}

/** The chart's entries; a string saying why not when the index cannot be read or lacks the chart. */
export function chartEntries(indexText: string, chart: string): IndexEntry[] | string {
  let doc: unknown;
  try {
    // Every scalar a string, as helm's typed structs read them: `version: 1.10` is not 1.1, and a
    // digest of digits only is not a number. Aliases are refused rather than expanded.
    doc = parse(indexText, { schema: 'failsafe', maxAliasCount: 0, uniqueKeys: false });
  } catch (err) {
    return `index.yaml is not valid YAML (${(err as Error).message.split('\n')[0]})`;
  }
  const entries = doc && typeof doc === 'object' ? getOwn(doc, 'entries') : undefined;
  if (!entries || typeof entries !== 'object') return 'index.yaml has no entries';
  const list = getOwn(entries, chart);
  if (!Array.isArray(list) || list.length === 0) return `no chart named '${chart}' in index.yaml`;
  const out: IndexEntry[] = [];
  for (const e of list) {
    if (!e || typeof e !== 'object') continue;
    const version = getOwn(e, 'version');
    const urls = getOwn(e, 'urls');
    if (typeof version !== 'string' || !Array.isArray(urls)) continue;
    const digest = getOwn(e, 'digest');
    const created = getOwn(e, 'created');
    out.push({
      version,
      urls: urls.filter((u): u is string => typeof u === 'string'),
      digest: typeof digest === 'string' && digest !== '' ? digest : undefined,
      created: typeof created === 'string' ? created : undefined,
    });
  }
  return out;
}

/** source-controller's choice for `version` (`*` or empty: the newest release). */
export function pickEntry(entries: readonly IndexEntry[], version: string | undefined): IndexEntry | string {
  const wanted = version === '*' ? '' : version;
  const r = newestMatching(entries, (e) => e.version, wanted, { newer: (a, b) => createdMs(a) > createdMs(b) });
  return r.ok ? r.value : r.error;
}

function createdMs(e: IndexEntry): number {
  const t = e.created === undefined ? NaN : Date.parse(e.created);
  return Number.isNaN(t) ? -Infinity : t;
}

/** helm's resolution of a package URL: absolute as is, relative to the repository URL (as a folder). */
export function packageUrl(repoUrl: string, entry: IndexEntry): string | undefined {
  const first = entry.urls[0];
  if (!first) return undefined;
  try {
    const base = repoUrl.endsWith('/') ? repoUrl : `${repoUrl}/`;
    return new URL(first, base).toString();
  } catch {
    return undefined;
  }
}

/** The index URL of a repository URL. */
export function indexUrl(repoUrl: string): string {
  return `${repoUrl.endsWith('/') ? repoUrl : `${repoUrl}/`}index.yaml`;
}
