import { findingMessage, FIRST_LINE_MAX } from './message';
import type { CheckContext } from './context';

/**
 * `yaml-syntax`: documents that do not parse (or cannot be expanded: alias bombs, absurd nesting)
 * and files that are not YAML at all; `file-unreadable` / `file-too-large`: files the workspace
 * walk did not read, or read only in part. Other rules keep running on everything else.
 */
export function checkSyntax(ctx: CheckContext): void {
  const start = { line: 0, character: 0 };
  for (const [path, why] of ctx.model.workspace.notRead) {
    ctx.diagnostics.push({
      rule: why.notRead === 'too-large' ? 'file-too-large' : why.notRead === 'over-budget' ? 'analysis-limit' : 'file-unreadable',
      severity: 'warning',
      file: path,
      range: { start, end: start },
      message: why.message,
      related: [],
    });
  }
  // With clusters known, a file none of their Kustomizations reads (a template, an archive) is never
  // parsed by Flux: its syntax errors are warnings until something includes it.
  let reached: Set<string> | undefined;
  const unapplied = (path: string) => {
    if (ctx.model.clusters.length === 0) return false;
    if (!reached) {
      reached = new Set();
      for (const c of ctx.model.clusters) for (const k of c.kustomizations) for (const f of k.files) reached.add(f);
    }
    return !reached.has(path);
  };
  const NOT_APPLIED = 'No cluster of this repository applies this file, so Flux does not read it until a Kustomization includes it.';
  const FAILS = 'kustomize fails to build any Kustomization that includes this file.';
  for (const file of ctx.model.workspace.files.values()) {
    if (file.problems.length === 0 && file.docs.every((d) => d.problems.length === 0)) continue;
    const quiet = unapplied(file.path);
    for (const p of file.problems) {
      // A read limit is ours, not Flux's: Flux still applies such a file.
      ctx.diagnostics.push({
        rule: p.limit ? 'file-too-large' : 'yaml-syntax',
        severity: p.limit || quiet ? 'warning' : 'error',
        file: file.path,
        range: p.range,
        message: p.limit ? findingMessage(p.message, p.message.length > FIRST_LINE_MAX && p.message, 'Checks skip what was not read.') : syntaxMessage(p.message, undefined, FAILS, quiet && NOT_APPLIED),
        related: [],
      });
    }
    for (const doc of file.docs) {
      for (const p of doc.problems) {
        const message = /call stack/i.test(p.message) ? 'YAML is nested too deeply to be read' : p.message;
        ctx.diagnostics.push({
          rule: 'yaml-syntax',
          severity: quiet ? 'warning' : 'error',
          file: file.path,
          range: p.range,
          message: syntaxMessage(message, doc.index + 1, FAILS, quiet && NOT_APPLIED),
          related: [],
        });
      }
    }
  }
}

/** The parser's own words first (they say what is wrong), then its context lines and what it breaks. */
function syntaxMessage(parser: string, doc: number | undefined, ...details: (string | false)[]): string {
  const [first, ...context] = parser.split('\n');
  const where = doc === undefined ? '' : ` (document ${doc})`;
  const head = `${first.trim()}${where}: fix the YAML.`;
  return findingMessage(head, head.length > FIRST_LINE_MAX && first, context.join('\n').trim(), ...details);
}
