/**
 * kustomize-controller feature gates as a repository runs them. The gates are controller arguments
 * (`--feature-gates=Name=true|false`) that a patch of the flux-system kustomization, a FluxInstance's
 * `kustomize.patches` or the flux-operator chart's values set; otherwise each gate has its release's
 * default.
 */
import { fluxVersionIn } from '../model/fluxVersion';
import { objectsOf } from '../model/objects';
import type { Workspace } from '../workspace/workspace';

const cache = new WeakMap<Workspace, { version: number; strict: boolean }>();

/**
 * Whether post-build substitution is strict (`StrictPostBuildSubstitutions`): an undefined variable
 * without a default fails the Kustomization instead of becoming an empty string. Opt-out from
 * kustomize-controller v1.9 (Flux 2.9), opt-in before: on unless a file sets the gate to false, or
 * every Flux release the repository pins is older than 2.9.
 */
export function strictPostBuild(ws: Workspace): boolean {
  const known = cache.get(ws);
  if (known && known.version === ws.version) return known.strict;
  const strict = gateIn(ws) ?? !onlyReleasesBefore(ws, 2, 9);
  cache.set(ws, { version: ws.version, strict });
  return strict;
}

function gateIn(ws: Workspace): boolean | undefined {
  let gate: boolean | undefined;
  for (const file of ws.files.values()) {
    const m = /StrictPostBuildSubstitutions=(true|false)/.exec(file.text);
    if (!m) continue;
    // Clusters that disagree: strict, the release default.
    if (m[1] === 'true') return true;
    gate = false;
  }
  return gate;
}

function onlyReleasesBefore(ws: Workspace, major: number, minor: number): boolean {
  let found = false;
  for (const file of ws.files.values()) {
    // Only documents that can pin a release are parsed for it: files that name one.
    if (!/distribution|flux-manifests|fluxcd\/flux2|Flux Version/.test(file.text)) continue;
    for (const o of objectsOf(file)) {
      const v = fluxVersionIn(o);
      if (!v) continue;
      if (v.major > major || (v.major === major && v.minor >= minor)) return false;
      found = true;
    }
  }
  return found;
}
