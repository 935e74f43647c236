import type { Budgets } from '../core/budgets';

/** What a CLI command may touch; tests pass buffers, `main.ts` passes the process. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The command's budgets (limits.ts: flags or environment); default DEFAULT_BUDGETS. */
  budgets?: Budgets;
}

export type CommandRunner = (args: string[], io: CliIO) => Promise<number>;

/**
 * Exit codes shared by every command: 0 the answer is "fine" (or, for `tree` and `graph`, the
 * answer was printed), 1 the repository has a problem (`check` errors, a build that fails because
 * of the repository, drift, a failed reconcile), 2 the command could not answer (usage, an
 * internal error, a limit, the cluster or a chart out of reach).
 */
export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

/**
 * Render failures that are the repository's (render/errors.ts): kustomize or helm rejects what it
 * holds, post-build substitution fails, the object is malformed. Flux fails the same object the
 * same way. Anything else (a source outside the workspace, a chart that cannot be pulled, a
 * timeout or budget, a missing module) says nothing about the repository.
 */
const REPOSITORY_FAULTS = new Set(['build-failed', 'substitution', 'invalid']);

export function renderExitCode(kind: string): number {
  return REPOSITORY_FAULTS.has(kind) ? EXIT_FINDINGS : EXIT_USAGE;
}

export class UsageError extends Error {}

/** Minimal flag parser: `--flag value`, `--flag=value`, `-n value`, booleans listed in `booleans`. */
export function parseArgs(
  args: string[],
  spec: { booleans?: string[]; values?: string[]; aliases?: Record<string, string> },
): { flags: Record<string, string | boolean>; positionals: string[] } {
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  const booleans = new Set(spec.booleans ?? []);
  const values = new Set(spec.values ?? []);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    let name = arg.replace(/^--?/, '');
    let value: string | undefined;
    const eq = name.indexOf('=');
    if (eq !== -1) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    name = spec.aliases?.[name] ?? name;
    if (booleans.has(name)) {
      if (value !== undefined) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
    } else if (values.has(name)) {
      if (value === undefined) {
        if (i + 1 >= args.length) throw new UsageError(`--${name} needs a value`);
        value = args[++i];
      }
      flags[name] = value;
    } else {
      throw new UsageError(`unknown flag ${arg}`);
    }
  }
  return { flags, positionals };
}
