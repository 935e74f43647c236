import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread, parentPort } from 'node:worker_threads';
import { diskHost } from '../node/fsHost';
import { readAheadHost } from './readAhead';
import type { Engine } from '../engine/engine';
import type { EngineSettings } from '../engine/protocol';
import { nodeEngine, openRefined } from '../engine/node';
import { gitBaseReader } from '../engine/gitBase';
import { defaultStorageDir } from '../engine/persistentBuildCache';
import { relativePath } from '../core/tree/treeData';
import { terminalName, terminalText } from '../core/escape/terminal';
import { UsageError, type CliIO } from './io';

/**
 * DIR (default: cwd) opened in an in-process engine; every command that reads the workspace starts
 * here. `helm: false`: the command needs no HelmRelease render of the model (it renders what it
 * needs itself), so it does not wait for them. `focus`: the command asks about the Kustomizations
 * of one name alone (EngineSettings.focus), so the others' leaves are not built.
 */
export async function openWorkspace(dir: string | undefined, io: CliIO, { helm = true, focus }: { helm?: boolean; focus?: EngineSettings['focus'] } = {}): Promise<{ engine: Engine; root: string }> {
  const root = path.resolve(io.cwd, dir ?? '.').split(path.sep).join('/');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
  } catch {
    throw new UsageError(`${root}: no such directory`);
  }
  if (!stat.isDirectory()) throw new UsageError(`${root}: not a directory`);
  // In the CLI's worker, the walk takes what the main thread read ahead (readAhead.ts).
  const host = !isMainThread && parentPort ? readAheadHost(diskHost, root, parentPort) : undefined;
  const engine = nodeEngine({ debounceMs: 0, budgets: io.budgets, env: io.env, bases: gitBaseReader(io.budgets), host });
  await openRefined(engine, [root], { storageDir: defaultStorageDir(), ...(focus ? { focus } : {}) }, { helm });
  // Builds are saved after a quiet period; a command ends before it, so they are saved on exit.
  if (openEngines.size === 0) process.once('exit', () => openEngines.forEach((e) => e.deref()?.dispose()));
  openEngines.add(new WeakRef(engine));
  return { engine, root };
}

const openEngines = new Set<WeakRef<Engine>>();

/** Files that do not parse are reported, with file:line, without stopping the command. */
export async function reportParseErrors(engine: Engine, root: string, io: CliIO): Promise<void> {
  for (const p of await engine.request('parseProblems', { root })) {
    io.stderr(`${terminalName(relativePath(root, p.file))}:${p.line}${p.column ? `:${p.column}` : ''}: ${terminalText(p.message)}\n`);
  }
}
