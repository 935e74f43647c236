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
  for (const file of ctx.model.workspace.files.values()) {
    if (file.problems.length === 0 && file.docs.every((d) => d.problems.length === 0)) continue;
    for (const p of file.problems) {
      // A read limit is ours, not Flux's: Flux still applies such a file.
      ctx.diagnostics.push({
        rule: p.limit ? 'file-too-large' : 'yaml-syntax',
        severity: p.limit ? 'warning' : 'error',
        file: file.path,
        range: p.range,
        message: p.limit ? `${p.message} Checks skip what was not read.` : `${p.message} kustomize fails to build any Kustomization that includes this file.`,
        related: [],
      });
    }
    for (const doc of file.docs) {
      for (const p of doc.problems) {
        const message = /call stack/i.test(p.message) ? 'YAML is nested too deeply to be read' : p.message;
        ctx.diagnostics.push({
          rule: 'yaml-syntax',
          severity: 'error',
          file: file.path,
          range: p.range,
          message: `${message} (document ${doc.index + 1}); kustomize fails to build any Kustomization that includes this file.`,
          related: [],
        });
      }
    }
  }
}
