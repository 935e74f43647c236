import type { RepoModel } from '../model/graph';
import { checkApiVersions } from './apiVersions';
import { checkConfig } from './config';
import { CheckContext, type CheckOptions } from './context';
import { checkCrdOrder } from './crdOrder';
import { checkDependsOn } from './dependsOn';
import { checkDuplicates } from './duplicates';
import { checkHelmReleases } from './helmReleases';
import { checkPaths } from './paths';
import { checkSchemas } from './schema';
import { checkServedVersions } from './servedVersions';
import { checkSources } from './sourceRefs';
import { checkSubstitutions } from './substitution';
import { checkSyntax } from './syntax';
import type { Diagnostic } from './types';
import { applySuppressions, type SuppressedDiagnostic } from './suppress';
import { groupByCause } from './group';
import { relativeIn } from './message';

export * from './types';
export type { Suppression, SuppressedDiagnostic } from './suppress';
export type { CheckOptions } from './context';
export { KNOWN_CHARTS } from './knownCharts';

const RULE_SETS: [string, (ctx: CheckContext) => void][] = [
  ['yaml-syntax', checkSyntax],
  ['api-version-unserved', checkApiVersions],
  ['depends-on', checkDependsOn],
  ['source-not-found', checkSources],
  ['path-not-found', checkPaths],
  ['crd-order', checkCrdOrder],
  ['substitution', checkSubstitutions],
  ['duplicate-object', checkDuplicates],
  ['config-invalid', checkConfig],
  ['schema', checkSchemas],
  ['api-version-unserved', checkServedVersions],
  ['helm', checkHelmReleases],
];

export interface CheckResult {
  readonly diagnostics: Diagnostic[];
  /** Rules that threw: a bug in a rule, never a reason to drop the other rules' findings. */
  readonly failures: { rules: string; message: string }[];
  /** Findings the repository silenced (`.gitops-preview.yaml`, `# gitops-preview:` comments), with why. */
  readonly suppressed: SuppressedDiagnostic[];
}

/** Runs every rule over the model (which already reflects unsaved editor buffers). */
export function checkModel(model: RepoModel, options: CheckOptions = {}): CheckResult {
  const ctx = new CheckContext(model, options);
  const failures: { rules: string; message: string }[] = [];
  for (const [name, run] of RULE_SETS) {
    try {
      run(ctx);
    } catch (err) {
      failures.push({ rules: name, message: (err as Error).stack ?? String(err) });
    }
  }
  const root = model.workspace.root;
  // Messages quote paths as the builds saw them; a finding names them from the repository root.
  const relative = ctx.diagnostics.map((d) => ({ ...d, message: relativeIn(d.message, root), related: d.related.map((r) => ({ ...r, message: relativeIn(r.message, root) })) }));
  const { kept, suppressed } = applySuppressions(model.workspace, groupByCause(dedupe(relative)));
  return { diagnostics: sortDiagnostics(kept), failures, suppressed: sortDiagnostics(suppressed) as SuppressedDiagnostic[] };
}

/** The same document is often reached from several clusters; report each finding once. */
function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.rule}|${d.file}|${d.range.start.line}:${d.range.start.character}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return list.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.range.start.line - b.range.start.line ||
      a.range.start.character - b.range.start.character ||
      (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  );
}
