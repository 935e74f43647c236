/**
 * Every finding of a corpus with its message, for reviewing a snapshot:
 * `node --import tsx test/unit/corpora/messages.ts CORPUS [--branch B]`.
 */
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { checkModel } from '../../../src/core/checks/index';
import { Folder } from '../../../src/engine/folder';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { diskHost } from '../../../src/node/fsHost';
import { CORPORA, corpusRemotes } from '../helpers';

async function main(): Promise<void> {
  const [name, flag, value] = process.argv.slice(2);
  const branch = flag === '--branch' ? value : 'main';
  const dir = path.join(CORPORA, name).split(path.sep).join('/');
  const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
  const folder = new Folder(dir, diskHost, { sha256, remotes: corpusRemotes(name), checkout: { branch } }, { cache: new MemoryBuildCache() });
  await folder.refine({ allowNetwork: false });
  // Then the HelmReleases whose chart is in the corpus (no chart cache: the machine's must not matter).
  await folder.refineHelm({});
  for (const d of checkModel(folder.model()).diagnostics) {
    process.stdout.write(`${d.severity} ${d.rule} ${d.file.slice(dir.length + 1)}:${d.range.start.line + 1}\n  ${d.message}\n`);
  }
  process.exit(0);
}

void main();
