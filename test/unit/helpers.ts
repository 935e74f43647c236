import * as path from 'node:path';
import * as fs from 'node:fs';
import { Repo } from '../../src/core/repo';
import { memoryHost } from '../../src/core/workspace/host';
import { diskHost } from '../../src/node/fsHost';

/** `<repo>/../shared`, where CI puts the read-only corpora beside the clone. */
export const SHARED = path.resolve(__dirname, '../../../shared');
export const CORPORA = path.join(SHARED, 'corpora');

export function corpusRepo(name: string): Repo {
  const root = path.join(CORPORA, name);
  if (!fs.existsSync(root)) throw new Error(`corpus ${root} is missing: the shared folder must sit beside the repository`);
  return new Repo(root, diskHost, { sha256: (s) => s });
}

export function memoryRepo(files: Record<string, string>, root = '/repo'): Repo {
  return new Repo(root, memoryHost(root, files));
}
