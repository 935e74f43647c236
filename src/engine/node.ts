import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { BuildOptions } from '../core/model/graph';
import { diskHost } from '../node/fsHost';
import type { WorkspaceHost } from '../core/workspace/host';
import { gitCheckout, gitRemotes } from '../node/gitMetadata';
import { Engine } from './engine';
import type { Budgets } from '../core/budgets';
import type { EngineSettings } from './protocol';
import type { BaseReader } from './changes';
import { buildCacheDir, buildCacheVersion, CACHE_FILE, PersistentBuildCache } from './persistentBuildCache';
import { maxTotalBytesFromEnv } from './buildCacheCap';
import { ParseCache } from './parseCache';
import { prestartKustomize } from '../render/kustomize';
import { wasmDir } from './wasm/host';

/** Model options for a folder on disk: its Git remotes and checkout, the editor's settings, node's sha256. */
export function diskBuildOptions(root: string, settings: EngineSettings = {}): BuildOptions {
  return {
    remotes: gitRemotes(root),
    checkout: gitCheckout(root),
    sourceRoots: settings.sourceRoots,
    sha256: (s) => createHash('sha256').update(s).digest('hex'),
    ...(settings.focus ? { focus: settings.focus } : {}),
  };
}

/**
 * Builds persisted under the editor's (or the CLI's) storage directory, when it gave one and the
 * user's total cap (GITOPS_PREVIEW_CACHE_MAX_MB) is not 0.
 */
function persistentCache(root: string, settings: EngineSettings, roots: readonly string[], log: (m: string) => void): PersistentBuildCache | undefined {
  if (!settings.storageDir) return undefined;
  const maxTotalBytes = maxTotalBytesFromEnv(process.env, log);
  if (maxTotalBytes === 0) return undefined;
  return PersistentBuildCache.open({ dir: buildCacheDir(settings.storageDir, root), version: buildCacheVersion(wasmDir()), workspaceRoots: roots, maxTotalBytes, log });
}

/** Parses kept beside the folder's persisted builds (same storage directory, same opt-out). */
function persistentParses(root: string, settings: EngineSettings, roots: readonly string[], log: (m: string) => void): ParseCache | undefined {
  if (!settings.storageDir || maxTotalBytesFromEnv(process.env) === 0) return undefined;
  return ParseCache.open({ dir: buildCacheDir(settings.storageDir, root), version: buildCacheVersion(wasmDir()), workspaceRoots: roots, log });
}

/** An engine over the disk (worker and CLI), building every cluster from its root down. */
export function nodeEngine(options: { debounceMs?: number; budgets?: Budgets; env?: NodeJS.ProcessEnv; bases?: BaseReader; host?: WorkspaceHost } = {}): Engine {
  // HelmReleases render from the user's chart cache (the one `build hr` and drift fill).
  const charts = { env: options.env ?? process.env };
  return new Engine({ host: options.host ?? diskHost, debounceMs: options.debounceMs, buildOptions: diskBuildOptions, buildCache: persistentCache, parseCache: persistentParses, builds: true, budgets: options.budgets, charts, bases: options.bases });
}

/**
 * Opens folders and waits until every Kustomization build is done: the one way the CLI (and any
 * batch caller) reaches the answers the editor shows once its engine has settled.
 */
/**
 * Opens `roots` and waits for their builds: with `helm`, the HelmRelease renders too (what the
 * model holds of each chart); without, the Kustomization builds only.
 */
export async function openRefined(engine: Engine, roots: readonly string[], settings: EngineSettings = {}, { helm = true }: { helm?: boolean } = {}): Promise<void> {
  // Nothing is shown before the builds are done, so the instance may start beside the parse even
  // where that slows the parse (Engine.open does so only with cores to spare). Not when the builds
  // are persisted already: then most are taken from the cache, and the instance's start (≈ 0.4 s
  // of a core) would only compete with the open; it starts at the first build instead.
  if (!settings.storageDir || roots.some((root) => !fs.existsSync(path.join(buildCacheDir(settings.storageDir!, root), CACHE_FILE)))) prestartKustomize();
  engine.open(roots, settings);
  await (helm ? engine.refined() : engine.refinedBuilds());
}
