/**
 * flate (github.com/home-operations/flate, built by test/cluster/build.sh into the test tools'
 * cache), the yardstick of the changes benchmark: an offline Flux renderer and differ whose `diff`
 * always runs its changed-only mode (it reconciles only the subtree the change touches).
 */
import { execFileSync } from 'node:child_process';
import { testToolBin } from './testTools';

/** FLATE_BIN, else the test tools' cached build; throws with how to build it. */
export function flateBin(): string {
  return testToolBin('FLATE_BIN', 'flate');
}

/** What `flate --version` says (the tag build.sh stamps into it). */
export function flateVersion(bin: string): string {
  return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * Flags every measured flate run gets: no live progress lines (stderr is not a terminal anyway),
 * one attempt per source fetch (there is no network here to retry against), its cache where the
 * bench says, and `-o diff`, a plain unified diff of the rendered objects (the bench reads it).
 */
export function flateCommon(cacheDir: string): string[] {
  return ['--no-progress', '--source-retry-attempts', '1', '--cache-dir', cacheDir];
}
