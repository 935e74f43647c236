/**
 * Whole-process runs of commands taking turns (A B C, then B C A, …) so a drift of the shared
 * machine's speed reaches each alike; each run's output must show what it is run for.
 */
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { timedProcess, type TimedProcess } from './childProcess';
import { median } from './inputs';

const TIMEOUT_MS = 10 * 60_000;

export interface Command {
  readonly name: string;
  readonly bin: string;
  /** Arguments of run `i` (-1: the uncounted first run). */
  args(i: number): string[];
  env?(i: number): NodeJS.ProcessEnv;
  /** Exit codes that are a finished run (anything else fails the bench). */
  readonly ok: readonly number[];
  /** What the output must show (stdout, else stderr). */
  readonly expect: readonly RegExp[];
}

export interface Measured {
  readonly command: Command;
  readonly runs: TimedProcess[];
  readonly load: number[];
}

export const f0 = (x: number) => x.toFixed(0);
export const f2 = (x: number) => x.toFixed(2);
export const load1 = () => os.loadavg()[0];

/** The CLI bundled from src/ as esbuild.js bundles it (with the WebAssembly modules' worker and dist/wasm beside it). */
export function bundleCli(dir: string): string {
  const wasm = path.resolve(__dirname, '../dist/wasm');
  if (!fs.existsSync(path.join(wasm, 'kustomize.wasm'))) throw new Error(`${wasm}/kustomize.wasm is missing: run \`make build\` first`);
  esbuild.buildSync({
    entryPoints: { cli: path.resolve(__dirname, '../src/cli/launch.ts'), 'cli-worker': path.resolve(__dirname, '../src/cli/main.ts'), 'wasm-worker': path.resolve(__dirname, '../src/engine/wasm/worker.ts') },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outdir: dir,
    external: ['vscode'],
    logLevel: 'warning',
  });
  fs.symlinkSync(wasm, path.join(dir, 'wasm'));
  return path.join(dir, 'cli.js');
}

function runOnce(c: Command, i: number, cwd: string): TimedProcess {
  const r = timedProcess(c.bin, c.args(i), { cwd, env: { ...process.env, ...c.env?.(i) }, timeoutMs: TIMEOUT_MS });
  if (r.status === null || !c.ok.includes(r.status)) throw new Error(`${c.name}: exit ${r.status}\n${r.stderr.slice(-4000)}`);
  const out = r.stdout || r.stderr;
  for (const re of c.expect) {
    if (!re.test(out)) throw new Error(`${c.name}: its output does not show the edit (${re}); exit ${r.status}\nstdout:\n${r.stdout.slice(0, 4000)}\nstderr:\n${r.stderr.slice(-4000)}`);
  }
  return r;
}

/** One uncounted run of each, then `runs` rounds, the order turning each round. */
export function measure(commands: readonly Command[], runs: number, cwd: string): Measured[] {
  const out = commands.map((command) => ({ command, runs: [] as TimedProcess[], load: [] as number[] }));
  for (const c of commands) runOnce(c, -1, cwd);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < commands.length; k++) {
      const m = out[(i + k) % commands.length];
      m.load.push(load1());
      m.runs.push(runOnce(m.command, i, cwd));
      process.stderr.write(`  ${m.command.name} #${i + 1}: ${f0(m.runs[i].ms)} ms (load ${f2(m.load[i])})\n`);
    }
  }
  return out;
}

export function rows(ms: Measured[], ref: Measured): string[] {
  return ms.map((m) => {
    const wall = m.runs.map((r) => r.ms);
    const cpu = m.runs.map((r) => r.cpuMs);
    const ratio = m === ref ? '1' : f2(median(m.runs.map((r, i) => ref.runs[i].ms / r.ms)));
    return `| ${m.command.name} | **${f0(median(wall))}** | ${f0(Math.min(...wall))}–${f0(Math.max(...wall))} | ${f0(median(cpu))} | ${ratio} | ${f2(Math.min(...m.load))}–${f2(Math.max(...m.load))} |`;
  });
}

export const TABLE_HEAD = ['| command | wall ms, median | wall ms, min–max | CPU ms, median | ours ÷ this, median of the paired runs | load average (1 min) at its runs |', '|---|---|---|---|---|---|'];

