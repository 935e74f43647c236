import * as path from 'node:path';
import { Repo } from '../src/core/repo';
import { diskHost } from '../src/node/fsHost';
import { generateRepo } from './generate';

export const CORPORA = path.resolve(__dirname, '../../shared/corpora');

/**
 * The manifest files (relative path → text) the workspace reads for a corpus, or the generated
 * repository: benchmarks load them into memory first so disk speed stays out of the numbers.
 */
export function benchFiles(name: string): Record<string, string> {
  if (name === 'generated') return generateRepo().files;
  const root = path.join(CORPORA, name);
  const repo = new Repo(root, diskHost);
  const files: Record<string, string> = {};
  for (const [p, f] of repo.workspace.files) files[path.relative(root, p)] = f.text;
  return files;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The value below which `p` % of `xs` fall (nearest rank). */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((s.length * p) / 100) - 1))];
}

/**
 * Wall time and this process's CPU time (user + system) of `fn`. On a loaded machine the CPU time
 * shows the work done, the wall time what a user waits (work plus waiting for a core).
 */
export function timed<T>(fn: () => T): { value: T; wallMs: number; cpuMs: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { value, wallMs, cpuMs: (c.user + c.system) / 1000 };
}
