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
