/**
 * kustomize-controller feature gates as a repository runs them. The gates are controller arguments
 * (`--feature-gates=Name=true|false`) that a patch of the flux-system kustomization, a FluxInstance's
 * `kustomize.patches` or the flux-operator chart's values set; otherwise each gate has its release's
 * default.
 */
import { fluxVersionIn, parseFluxVersion, type FluxVersion } from '../model/fluxVersion';
import { asRecord, asString } from '../model/objects';
import { objectsOf } from '../model/objects';
import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { helmfileFluxPins } from '../bootstrap/helmfiles';

const cache = new WeakMap<Workspace, { version: number; strict: boolean }>();
const additiveCache = new WeakMap<Workspace, { version: number; additive: boolean }>();

/**
 * Whether post-build substitution is strict (`StrictPostBuildSubstitutions`): an undefined variable
 * without a default fails the Kustomization instead of becoming an empty string. Opt-out from
 * kustomize-controller v1.9 (Flux 2.9), opt-in before: on unless a file sets the gate to false, or
 * every Flux release the repository pins (manifests, values files, bootstrap helmfiles) is older than 2.9.
 */
export function strictPostBuild(ws: Workspace): boolean {
  const known = cache.get(ws);
  if (known && known.version === ws.version) return known.strict;
  let gate: boolean | undefined;
  let pinnedBefore = false;
  let pinnedLater = false;
  for (const file of ws.files.values()) {
    const f = fileFacts(file);
    // Clusters that disagree: strict, the release default.
    if (f.gate !== undefined) gate = gate === true ? true : f.gate;
    pinnedBefore ||= f.before;
    pinnedLater ||= f.later;
  }
  // A bootstrap helmfile installing flux-instance pins the release too (`.gotmpl` helmfiles are no manifests).
  for (const pin of helmfileFluxPins(ws)) {
    const v = parseFluxVersion(pin, 'helmfile flux-instance values');
    if (!v) continue;
    if (v.major > 2 || (v.major === 2 && v.minor >= 9)) pinnedLater = true;
    else pinnedBefore = true;
  }
  const strict = gate ?? !(pinnedBefore && !pinnedLater);
  cache.set(ws, { version: ws.version, strict });
  return strict;
}

/**
 * Whether kustomize-controller and helm-controller run `AdditiveCELDependencyCheck` (off by default):
 * a `dependsOn[].readyExpr` is then checked in addition to the dependency's Ready condition instead
 * of replacing it. The repository's files say so as they say the other gates; either controller's
 * setting counts for both.
 */
export function additiveCelDependencyCheck(ws: Workspace): boolean {
  const known = additiveCache.get(ws);
  if (known && known.version === ws.version) return known.additive;
  let additive = false;
  for (const file of ws.files.values()) additive ||= fileFacts(file).additive === true;
  additiveCache.set(ws, { version: ws.version, additive });
  return additive;
}

interface FileFacts {
  /** The gate as the file sets it. */
  readonly gate: boolean | undefined;
  /** `AdditiveCELDependencyCheck` as the file sets it. */
  readonly additive: boolean | undefined;
  /** Whether it pins a Flux release older than 2.9, or 2.9 and later. */
  readonly before: boolean;
  readonly later: boolean;
}

/** Per parsed file, so an edit reads only the file it changed. */
const facts = new WeakMap<SourceFile, FileFacts>();

function fileFacts(file: SourceFile): FileFacts {
  let f = facts.get(file);
  if (f) return f;
  const m = /StrictPostBuildSubstitutions=(true|false)/.exec(file.text);
  const additive = /AdditiveCELDependencyCheck=(true|false)/.exec(file.text);
  let before = false;
  let later = false;
  // Only documents that can pin a release are read for it: files that name one.
  if (/distribution|flux-manifests|fluxcd\/flux2|Flux Version/.test(file.text)) {
    const versions = [...objectsOf(file).map((o) => fluxVersionIn(o)), ...file.docs.map((d) => chartValuesVersion(d.value))];
    for (const v of versions) {
      if (!v) continue;
      if (v.major > 2 || (v.major === 2 && v.minor >= 9)) later = true;
      else before = true;
    }
  }
  f = { gate: m ? m[1] === 'true' : undefined, additive: additive ? additive[1] === 'true' : undefined, before, later };
  facts.set(file, f);
  return f;
}

/**
 * A flux-instance chart values file (`instance.distribution.version`, no `kind`): it reaches the
 * chart through `valuesFrom` a ConfigMap, generated from the file, so no manifest holds the pin.
 */
function chartValuesVersion(value: unknown): FluxVersion | undefined {
  const doc = asRecord(value);
  if (!doc || doc.kind !== undefined) return undefined;
  const v = asRecord(asRecord(doc.instance)?.distribution)?.version;
  return parseFluxVersion(typeof v === 'number' ? String(v) : asString(v), 'flux-instance chart values distribution.version');
}
