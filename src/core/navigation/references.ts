import type { RepoModel } from '../model/graph';
import type { SourceFile } from '../yaml/document';
import type { Position, Range } from '../yaml/lines';
import { exactRange, objectAtOffset, objectTarget, type NavTarget } from './locate';
import { siteAt } from './definition';
import { referenceSites, type ReferenceSite } from './sites';

export interface NavReference {
  readonly file: string;
  readonly range: Range;
  /** Why it is listed: `dependsOn`, `sourceRef`, `applies` … */
  readonly why: string;
}

/** Every reference site of the workspace (Helm chart folders excluded), cached per model via referenceSites. */
function allSites(model: RepoModel): ReferenceSite[] {
  const out: ReferenceSite[] = [];
  for (const file of model.workspace.files.values()) {
    if (model.workspace.chartDirOf(file.path)) continue;
    for (const s of referenceSites(model, file)) out.push(s);
  }
  return out;
}

/**
 * Find References for the object under the cursor (or the object a reference under the cursor
 * names): the entries pointing at it (dependsOn, sourceRef, valuesFrom …), the Flux
 * Kustomizations applying it and the kustomization files listing its file.
 */
export function referencesAt(model: RepoModel, file: SourceFile, pos: Position, includeDeclaration: boolean): NavReference[] {
  const subjects = new Set<string>();
  const site = siteAt(model, file, pos);
  for (const t of site?.targets ?? []) if (t.objectId) subjects.add(t.objectId);
  if (!subjects.size) {
    const object = objectAtOffset(model, file, file.lines.offset(pos));
    if (object) subjects.add(object.id);
  }
  if (!subjects.size) return [];
  const objects = model.allObjects.filter((o) => subjects.has(o.id));
  const files = new Set(objects.map((o) => o.doc.file.path));
  const out: NavReference[] = [];
  if (includeDeclaration) for (const o of objects) out.push({ ...objectTarget(o), why: 'declaration' });
  for (const s of allSites(model)) {
    const hit = s.targets.some((t: NavTarget) => (t.objectId ? subjects.has(t.objectId) : s.kind === 'kustomizeFile' && files.has(t.file) && !t.folder));
    if (hit) out.push({ file: s.file, range: s.range, why: s.kind });
  }
  for (const o of objects) {
    for (const applied of model.appliedById.get(o.id) ?? []) {
      const by = applied.appliedBy?.applied.object;
      if (!by) continue;
      // An inferred bootstrap Kustomization has no spec.path in its file: point at the file itself.
      const range = (!by.synthetic && exactRange(by.doc, ['spec', 'path'])) || objectTarget(by).range;
      out.push({ file: by.doc.file.path, range, why: 'applies' });
    }
  }
  const seen = new Set<string>();
  return out.filter((r) => {
    const k = `${r.file}:${r.range.start.line}:${r.range.start.character}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
