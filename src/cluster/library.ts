/**
 * The Kubernetes client library, loaded when a command first reaches a cluster. It and what it
 * pulls in (fetch, WebSocket and proxy agents, tr46) are 1.7 MB of the CLI's 3.8 MB bundle, which
 * every command read, compiled and ran at its start, cluster or not; esbuild.js bundles it apart
 * as dist/kube.js, beside the bundles that load it.
 */
import * as path from 'node:path';
import type * as Library from './kubeLibrary';
import { requireWithCodeCache } from '../node/codeCache';

let loaded: typeof Library | undefined;

export function kubeLibrary(): typeof Library {
  // From sources (tests, benchmarks under tsx) the module itself; from a bundle, the bundle beside it.
  loaded ??= (__filename.endsWith('.ts') ? require(path.join(__dirname, 'kubeLibrary')) : requireWithCodeCache(path.join(__dirname, 'kube.js'))) as typeof Library;
  return loaded;
}
