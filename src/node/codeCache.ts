/**
 * Runs a CommonJS bundle with V8's code cache: the bytecode V8 compiled for it on an earlier run,
 * kept under the product's cache directory, so a start does not parse and compile the bundle's
 * megabytes again (the CLI's command bundle: ≈ 0.1 s of every command). V8 rejects data made for
 * another source or V8 build (then the bundle compiles as usual and the data is made again); a
 * missing or unwritable directory only means no cache. The directory is the user's, never a
 * repository's.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { productCacheDir } from './cacheDir';
import { writeAtomically } from './atomicWrite';

/** Loads `file` as `require(file)` would, with the code cache; returns its exports. */
export function requireWithCodeCache(file: string, env: NodeJS.ProcessEnv = process.env): unknown {
  // A leading `#!` line, which node's own loader skips, made a comment (lines keep their numbers).
  const source = fs.readFileSync(file, 'utf8').replace(/^#!/, '//');
  const stat = fs.statSync(file);
  const key = crypto.createHash('sha256').update(`${file}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}\0${process.version}\0${process.arch}`).digest('hex').slice(0, 24);
  const cacheFile = path.join(productCacheDir(env), 'v8', `${path.basename(file)}-${key}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // First run of this bundle: compiled as usual, the data written below.
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    // After the run, when the functions it called are compiled too (more of the bundle is cached).
    process.once('exit', () => {
      // Not written (a read-only cache): the bundle compiles as usual next time.
      writeAtomically(cacheFile, script.createCachedData());
      removeOthers(cacheFile, `${path.basename(file)}-`);
    });
  }
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  mod.loaded = true;
  return mod.exports;
}

/** Data made for earlier builds of the same bundle: never read again once the bundle changed. */
function removeOthers(kept: string, prefix: string): void {
  try {
    for (const name of fs.readdirSync(path.dirname(kept))) {
      if (name.startsWith(prefix) && name.endsWith('.bin') && name !== path.basename(kept)) fs.rmSync(path.join(path.dirname(kept), name), { force: true });
    }
  } catch {
    // Left for the next run to remove.
  }
}
