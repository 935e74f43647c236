/**
 * A repository's local branches: loose refs under `refs/heads` (nested names included) and those
 * in `packed-refs`, read as refs.ts reads refs (real paths inside the checkout's git folders,
 * names git accepts), at most MAX_BRANCHES of them.
 */
import * as fs from 'node:fs';
import { diskHost } from '../fsHost';
import { inside, isValidRefName, MAX_GIT_FILE_BYTES, readConfined } from '../gitMetadata';
import type { GitObjectStore } from './store';

export const MAX_BRANCHES = 500;
/** Folders below `refs/heads` (a `feature/x/y` branch is two deep). */
const MAX_DEPTH = 16;

/** Branch names (`main`, `feature/x`), sorted. */
export function localBranches(store: GitObjectStore): string[] {
  const names = new Set<string>();
  const add = (name: string) => {
    if (names.size < MAX_BRANCHES && isValidRefName(`refs/heads/${name}`)) names.add(name);
  };
  const walk = (dir: string, prefix: string, depth: number) => {
    const real = diskHost.realPath?.(dir);
    if (depth > MAX_DEPTH || !real || !inside(real, store.dirs.allowed)) return;
    let handle: fs.Dir;
    try {
      handle = fs.opendirSync(real);
    } catch {
      return;
    }
    try {
      for (let e = handle.readSync(); e && names.size < MAX_BRANCHES; e = handle.readSync()) {
        if (e.isDirectory()) walk(`${real}/${e.name}`, `${prefix}${e.name}/`, depth + 1);
        else if (e.isFile()) add(`${prefix}${e.name}`);
      }
    } finally {
      handle.closeSync();
    }
  };
  walk(`${store.dirs.commonDir}/refs/heads`, '', 0);
  const packed = readConfined(store.dirs, `${store.dirs.commonDir}/packed-refs`, MAX_GIT_FILE_BYTES) ?? '';
  for (const line of packed.split('\n')) {
    const m = /^[0-9a-f]{40} refs\/heads\/(.+)$/.exec(line);
    if (m) add(m[1]);
  }
  return [...names].sort();
}
