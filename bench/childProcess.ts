import { spawnSync } from 'node:child_process';

/**
 * The end of a benchmark child process (a fresh process per measured run): its result as one JSON
 * line on stdout for the parent to read, or the error on stderr and exit 1.
 */
export function reportAndExit(work: Promise<unknown>): void {
  work.then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}

export interface TimedProcess {
  readonly ms: number;
  /** User + system CPU time of the command and its children (all threads), which a loaded machine leaves as it is. */
  readonly cpuMs: number;
  readonly status: number | null;
  readonly stdout: string;
  /** The command's own stderr (bash's `times` line taken off). */
  readonly stderr: string;
}

/**
 * One run of `bin args` as a whole process: wall time from spawn to exit, and its CPU time through
 * bash's `times` (so the child's threads and its own children count, and the bash around it barely).
 */
export function timedProcess(bin: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): TimedProcess {
  const script = '"$0" "$@"; s=$?; times >&2; exit $s';
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', script, bin, ...args], { cwd: options.cwd, env: options.env, encoding: 'utf8', maxBuffer: 1 << 30, timeout: options.timeoutMs });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  const lines = r.stderr.trimEnd().split('\n');
  const cpuMs = childCpuMs(r.stderr);
  return { ms, cpuMs, status: r.status, stdout: r.stdout, stderr: lines.slice(0, -2).join('\n') };
}

/** The children's line of bash's `times` (`0m6.030s 0m0.210s`, its last line), in ms. */
export function childCpuMs(stderr: string): number {
  const lines = stderr.trim().split('\n');
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines[lines.length - 1] ?? '');
  if (!m) throw new Error(`no CPU times from bash: ${stderr}`);
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}
