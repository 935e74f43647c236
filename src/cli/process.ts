/** The CLI's process side: the command line, run in a worker under the overall limits (watchdog.ts). */
import { EXIT_USAGE, type CliIO } from './io';
import { takeLimits } from './limits';
import { runWatched } from './watchdog';
import { terminalText } from '../core/escape/terminal';
import { sealSharedPrototypes } from '../node/sealPrototypes';

/** The bundle beside this one that runs the command (esbuild.js names it). */
export const WORKER_BUNDLE = 'cli-worker.js';

/** The process's command line run in a worker loading `entry`, under the overall limits; sets the exit code. */
export function runProcess(entry: string): void {
  sealSharedPrototypes();
  const io: CliIO = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
  };
  const argv = process.argv.slice(2);
  let exit: Promise<number>;
  try {
    exit = runWatched(argv, io, takeLimits(argv, io.env).watchdog, entry);
  } catch (err) {
    io.stderr(`gitops-preview: ${terminalText((err as Error).message)}\n`);
    exit = Promise.resolve(EXIT_USAGE);
  }
  exit.then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`gitops-preview: ${terminalText(String((err as Error).stack ?? err))}\n`);
      process.exitCode = EXIT_USAGE;
    },
  );
}

