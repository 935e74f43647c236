/**
 * What the repository says about its own findings, as linters let their users say it:
 * `.gitops-preview.yaml` `rules` (a rule's severity, or `off`) and `ignore` (globs of files whose
 * findings are not reported), and inline comments
 *
 *   # gitops-preview: ignore crd-order -- the CRDs come from our Talos machine config
 *   # gitops-preview: ignore-document duplicate-object, crd-order -- reason
 *   # gitops-preview: ignore-file * -- generated
 *
 * `ignore` covers the line it ends, or the next line with content when it stands alone; the others
 * their document or file. A suppressed finding is not reported, but is kept with its justification
 * (SARIF lists it as suppressed), so nothing the repository silences goes unrecorded.
 */
import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { IgnoreMatcher } from '../workspace/sourceignore';
import { relativePath } from '../tree/treeData';
import { repositorySettings } from '../model/config';
import { RULES, type Diagnostic, type Severity } from './types';

export interface Suppression {
  /** `inSource`: a comment in the file; `external`: `.gitops-preview.yaml`. */
  readonly kind: 'inSource' | 'external';
  readonly justification: string;
}

export interface SuppressedDiagnostic extends Diagnostic {
  readonly suppression: Suppression;
}

export const DIRECTIVE = 'gitops-preview:';
const SCOPES = ['ignore', 'ignore-document', 'ignore-file'] as const;
type Scope = (typeof SCOPES)[number];

export interface Directive {
  scope: Scope;
  /** Rule ids, or `*` for every rule. */
  rules: string[];
  reason: string;
  /** 0-based line of the comment. */
  line: number;
  /** 0-based line it covers (`ignore`), the document's lines, or the whole file. */
  from: number;
  to: number;
}

/** The directives a file's comments hold; a malformed one is returned with `problem` for config-invalid. */
export function directivesOf(file: SourceFile): (Directive & { problem?: string })[] {
  const out: (Directive & { problem?: string })[] = [];
  const text = file.text;
  if (!text.includes(DIRECTIVE)) return out;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const at = line.indexOf(DIRECTIVE);
    if (at < 0) continue;
    const hash = line.lastIndexOf('#', at);
    if (hash < 0 || line.slice(hash + 1, at).trim() !== '') continue;
    const body = line.slice(at + DIRECTIVE.length).trim();
    const space = body.search(/\s/);
    const scope = (space < 0 ? body : body.slice(0, space)) as Scope;
    const rest = space < 0 ? '' : body.slice(space + 1);
    const dash = rest.indexOf('--');
    const rules = (dash < 0 ? rest : rest.slice(0, dash))
      .split(/[\s,]+/)
      .filter(Boolean);
    const reason = dash < 0 ? '' : rest.slice(dash + 2).trim();
    let problem: string | undefined;
    if (!SCOPES.includes(scope)) problem = `'${scope}' is not a gitops-preview directive: write ignore, ignore-document or ignore-file.`;
    else if (rules.length === 0) problem = `The directive names no rule: write '# gitops-preview: ${scope} <rule> -- <reason>' (or '*' for every rule).`;
    else {
      const unknown = rules.filter((r) => r !== '*' && !(r in RULES));
      if (unknown.length) problem = `Unknown rule ${unknown.map((r) => `'${r}'`).join(', ')}: the directive ignores nothing for it.`;
    }
    const standalone = line.slice(0, hash).trim() === '';
    let from = i;
    let to = i;
    if (scope === 'ignore' && standalone) {
      let next = i + 1;
      while (next < lines.length && (lines[next].trim() === '' || lines[next].trim().startsWith('#'))) next++;
      from = to = next;
    } else if (scope === 'ignore-document') {
      // The document the comment is in, or the one it heads (leading comments are outside its range).
      const doc = file.docs.find((d) => i <= file.lines.position(d.range[2]).line);
      from = doc ? Math.min(i, file.lines.position(doc.range[0]).line) : i;
      to = doc ? file.lines.position(doc.range[2]).line : i;
    } else if (scope === 'ignore-file') {
      from = 0;
      to = lines.length;
    }
    out.push({ scope, rules, reason, line: i, from, to, ...(problem ? { problem } : {}) });
  }
  return out;
}

/** Applies the repository's settings and inline directives to the findings of a check. */
export function applySuppressions(ws: Workspace, diagnostics: readonly Diagnostic[]): { kept: Diagnostic[]; suppressed: SuppressedDiagnostic[] } {
  const settings = repositorySettings(ws);
  const ignore = new IgnoreMatcher();
  if (settings.ignore.length) ignore.add('', settings.ignore);
  const directives = new Map<string, Directive[]>();
  const directivesIn = (path: string) => {
    let list = directives.get(path);
    if (!list) {
      const file = ws.files.get(path);
      list = file ? directivesOf(file).filter((d) => !d.problem) : [];
      directives.set(path, list);
    }
    return list;
  };
  const kept: Diagnostic[] = [];
  const suppressed: SuppressedDiagnostic[] = [];
  for (const d of diagnostics) {
    // Mistakes in the settings themselves are never silenced by them.
    if (d.rule === 'config-invalid') {
      kept.push(d);
      continue;
    }
    const setting = settings.rules.get(d.rule);
    if (setting === 'off') {
      suppressed.push({ ...d, suppression: { kind: 'external', justification: `rules: ${d.rule}: off in .gitops-preview.yaml` } });
      continue;
    }
    const rel = relativePath(ws.root, d.file);
    if (settings.ignore.length && ignore.ignores(rel, false)) {
      suppressed.push({ ...d, suppression: { kind: 'external', justification: `${rel} matches ignore in .gitops-preview.yaml` } });
      continue;
    }
    const line = d.range.start.line;
    const hit = directivesIn(d.file).find((x) => x.from <= line && line <= x.to && (x.rules.includes('*') || x.rules.includes(d.rule)));
    if (hit) {
      suppressed.push({ ...d, suppression: { kind: 'inSource', justification: hit.reason || `# gitops-preview: ${hit.scope} at line ${hit.line + 1}` } });
      continue;
    }
    kept.push(setting ? { ...d, severity: setting as Severity } : d);
  }
  return { kept, suppressed };
}
