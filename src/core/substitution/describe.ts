import type { RepoModel } from '../model/graph';
import { objectsOf } from '../model/objects';
import { docLine } from '../yaml/document';
import { substitute } from './evaluate';
import { resolveSubstituteVars, type VarOrigin } from './resolve';
import { substitutionAt, substitutionDisabled } from './scan';
import { markdownCode, markdownText } from '../escape/markdown';

export interface SubstitutionInfo {
  readonly name: string;
  /** Offsets of the `${…}` in the file. */
  readonly start: number;
  readonly end: number;
  readonly entries: { kustomization: string; status: 'defined' | 'default' | 'undefined' | 'unknown' | 'off'; value?: string; origin?: string }[];
  readonly markdown: string;
}

/** What a `${var}` at an offset becomes, per Kustomization applying the document (for hovers). */
export function describeSubstitution(model: RepoModel, filePath: string, offset: number): SubstitutionInfo | undefined {
  const file = model.workspace.files.get(filePath);
  if (!file) return undefined;
  const doc = file.docs.find((d) => offset >= d.range[0] && offset <= d.range[2]);
  if (!doc) return undefined;
  const ref = substitutionAt(doc, offset);
  if (!ref) return undefined;
  const rel = (p: string) => (p.startsWith(model.workspace.root + '/') ? p.slice(model.workspace.root.length + 1) : p);
  const where = (o: VarOrigin) => {
    const at = o.doc ? ` (${rel(o.doc.file.path)}:${docLine(o.doc)})` : '';
    return o.kind === 'substitute' ? `postBuild.substitute of Kustomization ${o.name}${at}` : `${o.kind} ${o.name}${at}`;
  };
  const expr = file.text.slice(ref.start, ref.end);
  const entries: SubstitutionInfo['entries'] = [];
  const seen = new Set<unknown>();
  for (const obj of objectsOf(file).filter((o) => o.doc === doc)) {
    for (const applied of model.appliedById.get(obj.id) ?? []) {
      const ks = applied.appliedBy;
      if (!ks || seen.has(ks)) continue;
      seen.add(ks);
      const label = `${ks.applied.namespace}/${ks.applied.name}`;
      const vars = resolveSubstituteVars(ks, model);
      if (!vars.enabled || !vars.active || substitutionDisabled(obj)) {
        entries.push({ kustomization: label, status: 'off' });
        continue;
      }
      const v = vars.vars.get(ref.name);
      const result = substitute(expr, (n) => vars.vars.get(n)?.value);
      if (v) entries.push({ kustomization: label, status: 'defined', value: v.masked ? '***' : result.value ?? v.value, origin: where(v.origin) });
      else if (!vars.complete) entries.push({ kustomization: label, status: 'unknown', origin: vars.unresolved.map((u) => u.reason).join('; ') });
      else if (ref.tolerant) entries.push({ kustomization: label, status: 'default', value: result.value ?? '' });
      else entries.push({ kustomization: label, status: 'undefined' });
    }
  }
  const lines = [`**${markdownCode(`\${${ref.name}}`)}** (Flux post-build substitution)`, ''];
  if (entries.length === 0) lines.push('Not applied by any Kustomization in the workspace.');
  for (const e of entries) {
    const head = `- Kustomization ${markdownCode(e.kustomization)}: `;
    switch (e.status) {
      case 'defined':
        lines.push(`${head}${markdownCode(e.value ?? '')} from ${markdownText(e.origin ?? '')}`);
        break;
      case 'default':
        lines.push(`${head}not defined; the expression yields ${markdownCode(e.value ?? '')}`);
        break;
      case 'undefined':
        lines.push(`${head}**not defined**: replaced by an empty string (strict mode fails the Kustomization)`);
        break;
      case 'unknown':
        lines.push(`${head}not known from the workspace (${markdownText(e.origin ?? '')})`);
        break;
      default:
        lines.push(`${head}no substitution (no postBuild variables, or disabled for this object)`);
    }
  }
  return { name: ref.name, start: ref.start, end: ref.end, entries, markdown: lines.join('\n') };
}
