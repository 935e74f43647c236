import type { CheckContext } from './context';
import { MAX_FILE_BYTES } from '../yaml/document';

/**
 * `yaml-syntax`: documents that do not parse (or cannot be expanded: alias bombs, absurd nesting)
 * and files that are not YAML at all. Other rules keep running on everything else.
 */
export function checkSyntax(ctx: CheckContext): void {
  for (const file of ctx.model.workspace.files.values()) {
    if (file.problems.length === 0 && file.docs.every((d) => d.problems.length === 0)) continue;
    for (const p of file.problems) {
      const tooLarge = file.text.length > MAX_FILE_BYTES;
      ctx.diagnostics.push({
        rule: 'yaml-syntax',
        // Flux still applies a large file; we only could not read it.
        severity: tooLarge ? 'warning' : 'error',
        file: file.path,
        range: p.range,
        message: tooLarge ? `${p.message} Checks skip it.` : `${p.message} kustomize fails to build any Kustomization that includes this file.`,
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
