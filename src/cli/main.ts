#!/usr/bin/env node
import { EXIT_USAGE, type CliIO, type CommandRunner } from './io';
import { terminalName, terminalText } from '../core/escape/terminal';
import { runTree } from './commands/tree';
import { runBuild, BUILD_USAGE } from './commands/build';
import { runDiff, DIFF_SUMMARY, DIFF_USAGE } from './commands/diff';
import { runCheck } from './commands/check';
import { runChanges, CHANGES_SUMMARY } from './commands/changes';
import { runGraph, GRAPH_SUMMARY } from './commands/graph';
import { LIMITS_USAGE, takeLimits } from './limits';
import { serveWatched } from './watchdog';
import { runProcess } from './process';
import { runReconcile, runResume, runSuspend, RECONCILE_SUMMARY, RESUME_SUMMARY, SUSPEND_SUMMARY, RECONCILE_USAGE } from './commands/reconcile';

/**
 * One line per subcommand (the usage's list; each lives in `commands/<name>.ts`), and its whole
 * usage when the line abbreviates it: what `<command> --help` prints.
 */
const COMMANDS: Record<string, { run: CommandRunner; summary: string; usage?: string }> = {
  reconcile: { run: runReconcile, summary: RECONCILE_SUMMARY, usage: RECONCILE_USAGE.reconcile },
  suspend: { run: runSuspend, summary: SUSPEND_SUMMARY, usage: RECONCILE_USAGE.suspend },
  resume: { run: runResume, summary: RESUME_SUMMARY, usage: RECONCILE_USAGE.resume },
  check: { run: runCheck, summary: 'check [DIR] [--format text|json|sarif|github]  ordering and correctness diagnostics (exit 1 on errors)' },
  diff: { run: runDiff, summary: DIFF_SUMMARY, usage: DIFF_USAGE },
  changes: { run: runChanges, summary: CHANGES_SUMMARY },
  build: { run: runBuild, summary: BUILD_USAGE },
  graph: { run: runGraph, summary: GRAPH_SUMMARY },
  tree: { run: runTree, summary: 'tree [DIR] [--format text|json]      what each Flux Kustomization applies, per cluster' },
};

export function usage(): string {
  return ['usage: gitops-preview <command> [options]', '', 'commands:', ...Object.values(COMMANDS).map((c) => `  ${c.summary}`), '', LIMITS_USAGE].join('\n') + '\n';
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    (name ? io.stdout : io.stderr)(usage());
    return name ? 0 : EXIT_USAGE;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`gitops-preview: unknown command ${terminalName(name)}\n${usage()}`);
    return EXIT_USAGE;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`usage: gitops-preview ${command.usage ?? command.summary}\n\n${LIMITS_USAGE}\n`);
    return 0;
  }
  try {
    const limited = takeLimits(rest, io.env);
    return await command.run(limited.argv, { ...io, budgets: limited.budgets });
  } catch (err) {
    // Usage errors name arguments and repository objects; any other error may quote either.
    io.stderr(`gitops-preview ${name}: ${terminalText((err as Error).message)}\n`);
    return EXIT_USAGE;
  }
}

// The command's work runs in a worker under the overall limits (watchdog.ts); this module is that
// worker's entry (dist/cli-worker.js), which seals the shared prototypes itself. Run from sources,
// it is the process's entry too.
if (!serveWatched(runCli) && require.main === module) runProcess(__filename);
