/**
 * The command-wide budgets (core/budgets.ts) as the user sets them: flags accepted by every
 * command, or the environment of the process. Never from the repository (no file in it is read
 * for them), so a repository cannot lift them.
 */
import { DEFAULT_BUDGETS, type Budgets } from '../core/budgets';
import { UsageError } from './io';
import { DEFAULT_WATCHDOG, type Watchdog } from './watchdog';

const MiB = 1024 * 1024;

/** Flag, environment variable, and how its number becomes the budgets it sets. */
const LIMITS: { flag: string; env: string; set: (n: number) => Partial<Budgets & Watchdog> }[] = [
  { flag: 'max-read-mb', env: 'GITOPS_PREVIEW_MAX_READ_MB', set: (n) => ({ readBytes: n * MiB }) },
  // One Kustomization may take a quarter of the command's substitution budget.
  { flag: 'max-substitution-mb', env: 'GITOPS_PREVIEW_MAX_SUBSTITUTION_MB', set: (n) => ({ substitutedBytes: n * MiB, substitutedBytesPerBuild: (n * MiB) / 4 }) },
  { flag: 'max-build-seconds', env: 'GITOPS_PREVIEW_MAX_BUILD_SECONDS', set: (n) => ({ buildMs: n * 1000 }) },
  { flag: 'time-limit', env: 'GITOPS_PREVIEW_TIME_LIMIT', set: (n) => ({ timeMs: n * 1000 }) },
  { flag: 'max-memory-mb', env: 'GITOPS_PREVIEW_MAX_MEMORY_MB', set: (n) => ({ memoryMb: n }) },
];

export const LIMITS_USAGE = `limits (every command; also GITOPS_PREVIEW_TIME_LIMIT, GITOPS_PREVIEW_MAX_READ_MB etc.):
  --time-limit SECONDS     the whole command, stopped with exit 2 past it (default ${DEFAULT_WATCHDOG.timeMs / 1000})
  --max-memory-mb N        JavaScript heap of the command, stopped with exit 2 past it (default ${DEFAULT_WATCHDOG.memoryMb})
  --max-read-mb N          manifest bytes read in all (default ${DEFAULT_BUDGETS.readBytes / MiB})
  --max-substitution-mb N  text post-build substitution produces in all, a quarter of it per Kustomization (default ${DEFAULT_BUDGETS.substitutedBytes / MiB})
  --max-build-seconds N    time of all Kustomization builds together (default ${DEFAULT_BUDGETS.buildMs / 1000})`;

/** `argv` without the limit flags, and the budgets and overall limits they (or the environment) set. */
export function takeLimits(argv: readonly string[], env: NodeJS.ProcessEnv): { argv: string[]; budgets: Budgets; watchdog: Watchdog } {
  let limits: Budgets & Watchdog = { ...DEFAULT_BUDGETS, ...DEFAULT_WATCHDOG };
  const rest: string[] = [];
  const apply = (limit: (typeof LIMITS)[number], raw: string, from: string) => {
    const n = Number(raw);
    if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`${from} must be a positive number, not '${raw}'`);
    limits = { ...limits, ...limit.set(n) };
  };
  for (const limit of LIMITS) {
    const fromEnv = env[limit.env];
    if (fromEnv) apply(limit, fromEnv, limit.env);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const limit = LIMITS.find((l) => arg === `--${l.flag}` || arg.startsWith(`--${l.flag}=`));
    if (!limit) {
      rest.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq === -1 && i + 1 >= argv.length) throw new UsageError(`--${limit.flag} needs a value`);
    apply(limit, eq === -1 ? argv[++i] : arg.slice(eq + 1), `--${limit.flag}`);
  }
  const { timeMs, memoryMb, ...budgets } = limits;
  return { argv: rest, budgets, watchdog: { timeMs, memoryMb } };
}
