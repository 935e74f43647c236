/**
 * Limits on a command's work as a whole (issue 23): per-file and per-build limits alone let a
 * repository multiply small inputs (thirty 4.9 MB files, a 1 MB variable used 400 times, five
 * builds of one slow folder) until the process runs out of memory or time. Past a budget the
 * work it covers stops and the tool says so (`analysis-limit`, naming the budget).
 *
 * Only the user sets them (CLI flags, the engine's options), never the repository.
 */
export interface Budgets {
  /** Manifest bytes the workspace walk reads and keeps parsed, all files together. */
  readonly readBytes: number;
  /** Text post-build substitution produces over every build of a refinement (a CLI command). */
  readonly substitutedBytes: number;
  /** Text post-build substitution produces for one Kustomization's build. */
  readonly substitutedBytesPerBuild: number;
  /** Wall-clock time of all Kustomization builds of a refinement (a CLI command) together. */
  readonly buildMs: number;
}

const MiB = 1024 * 1024;

/**
 * Far above real repositories (the generated 10,000-file repository is 2.9 MB of YAML; bjw-s-labs'
 * builds take seconds), low enough that what they let through fits in memory: the densest YAML
 * (a one-character list item per line) is held parsed in ~70× its size, so 32 MB of it in ~2.2 GB,
 * under the CLI's 3 GB heap ceiling (cli/watchdog.ts); typical manifests take ~20×.
 */
export const DEFAULT_BUDGETS: Budgets = {
  readBytes: 32 * MiB,
  substitutedBytes: 256 * MiB,
  substitutedBytesPerBuild: 64 * MiB,
  buildMs: 300_000,
};

/** A quantity that may be spent up to `limit`; shared by whoever draws on it. */
export class Allowance {
  used = 0;
  constructor(readonly limit: number) {}

  get left(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Spends `amount` when it fits; false (nothing spent) when it does not. */
  take(amount: number): boolean {
    if (this.used + amount > this.limit) return false;
    this.used += amount;
    return true;
  }
}

export function describeBytes(bytes: number): string {
  return bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

export function describeMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
