import type { RepoModel } from '../model/graph';
import type { SourceFile } from '../yaml/document';
import type { Position } from '../yaml/lines';
import { contains, type NavTarget } from './locate';
import { referenceSites, type ReferenceSite } from './sites';

/** The reference site under the cursor: the named scalar first, else the entry containing it. */
export function siteAt(model: RepoModel, file: SourceFile, pos: Position): ReferenceSite | undefined {
  const sites = referenceSites(model, file);
  return sites.find((s) => contains(s.range, pos)) ?? sites.find((s) => contains(s.extent, pos));
}

/** Go to Definition: where the value under the cursor points. */
export function definitionAt(model: RepoModel, file: SourceFile, pos: Position): NavTarget[] {
  return siteAt(model, file, pos)?.targets ?? [];
}

export interface NavLink {
  range: ReferenceSite['range'];
  target: NavTarget;
  /** Hover text of the link. */
  tooltip: string;
}

/** Document links for every resolved reference of a file (first target; peek lists the others). */
export function documentLinks(model: RepoModel, file: SourceFile): NavLink[] {
  const out: NavLink[] = [];
  for (const site of referenceSites(model, file)) {
    const target = site.targets[0];
    if (!target) continue;
    const more = site.targets.length > 1 ? ` (1 of ${site.targets.length}; Go to Definition lists all)` : '';
    out.push({ range: site.range, target, tooltip: `Open ${site.label}${more}` });
  }
  return out;
}
