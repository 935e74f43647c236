import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';
import { asArray, asString, asRecord, kustomizeConfigOf } from './objects';
import { normalizeVirtual } from './view';

/**
 * Whether a manifest's own folder has a kustomization that lists resources but not this file (an
 * entry commented out): whatever applies that folder applies the kustomization, never this file.
 */
export function leftOutOfFolder(ws: Workspace, file: string): boolean {
  const at = file.lastIndexOf('/');
  const dir = file.slice(0, at);
  for (const name of KUSTOMIZATION_FILE_NAMES) {
    const kfile = ws.files.get(`${dir}/${name}`);
    if (!kfile) continue;
    const listed = listedFiles(kfile);
    return listed.size > 0 && !listed.has(file.slice(at + 1));
  }
  return false;
}

/** The names of the kustomization's own folder its resources list (a file two levels away is not one of its neighbours). */
function listedFiles(kfile: SourceFile): Set<string> {
  let names = listedCache.get(kfile);
  if (names) return names;
  names = new Set();
  const config = asRecord(kustomizeConfigOf(kfile)?.value);
  for (const entry of [...asArray(config?.resources), ...asArray(config?.bases)]) {
    const rel = asString(entry);
    const path = rel === undefined ? undefined : normalizeVirtual(rel);
    // Any entry counts toward "lists resources"; only a neighbour's name can match this folder's file.
    if (path !== undefined) names.add(path);
  }
  listedCache.set(kfile, names);
  return names;
}

const listedCache = new WeakMap<SourceFile, Set<string>>();
