import { findingMessage, FIRST_LINE_MAX } from './message';
import type { CheckContext } from './context';
import { includable, reachOf } from './reach';

/**
 * `yaml-syntax`: documents that do not parse (or cannot be expanded: alias bombs, absurd nesting)
 * and files that are not YAML at all; `file-unreadable` / `file-too-large`: files the workspace
 * walk did not read, or read only in part. Other rules keep running on everything else.
 */
export function checkSyntax(ctx: CheckContext): void {
  const start = { line: 0, character: 0 };
  const clusters = ctx.model.clusters.length > 0;
  for (const [path, why] of ctx.model.workspace.notRead) {
    // A link or special file where no kustomization and no Kustomization's path looks (an Ansible
    // folder, tooling) costs Flux nothing: a note, not a warning.
    const aside = why.notRead === 'unreadable' && clusters && !includable(ctx.model, path);
    ctx.diagnostics.push({
      rule: why.notRead === 'too-large' ? 'file-too-large' : why.notRead === 'over-budget' ? 'analysis-limit' : 'file-unreadable',
      severity: aside ? 'info' : 'warning',
      file: path,
      range: { start, end: start },
      message: aside ? `${why.message} No kustomization or Kustomization of this repository reads this path, so Flux is not affected.` : why.message,
      related: [],
    });
  }
  // With clusters known, a file none of their Kustomizations reads (a template, an archive) is never
  // parsed by Flux: its syntax errors are warnings until something includes it, and notes when
  // nothing could (no kustomization lists it, no Kustomization's path holds it). A generator's input
  // is data, never parsed by kustomize, unless something also reads it as a manifest.
  const NOT_APPLIED = 'No cluster of this repository applies this file, so Flux does not read it until a Kustomization includes it.';
  const NOT_INCLUDED = 'No kustomization lists this file and no Kustomization\'s path holds it, so neither kustomize nor Flux parses it.';
  const FAILS = 'kustomize fails to build any Kustomization that includes this file.';
  for (const file of ctx.model.workspace.files.values()) {
    if (file.problems.length === 0 && file.docs.every((d) => d.problems.length === 0)) continue;
    // Computed only when some file has a problem: most models have none.
    const reach = reachOf(ctx.model);
    const read = !clusters || reach.clustersRead.has(file.path);
    const data = reach.generatorInputs.has(file.path) && !reach.listed.has(file.path);
    if (data && !read) continue;
    const quiet = !read;
    const aside = quiet && !includable(ctx.model, file.path);
    const severity = aside ? 'info' : quiet ? 'warning' : 'error';
    const consequence: (string | false)[] = aside ? [NOT_INCLUDED] : [FAILS, quiet && NOT_APPLIED];
    for (const p of file.problems) {
      // A read limit is ours, not Flux's: Flux still applies such a file.
      ctx.diagnostics.push({
        rule: p.limit ? 'file-too-large' : 'yaml-syntax',
        severity: p.limit ? 'warning' : severity,
        file: file.path,
        range: p.range,
        message: p.limit ? findingMessage(p.message, p.message.length > FIRST_LINE_MAX && p.message, 'Checks skip what was not read.') : syntaxMessage(p.message, undefined, ...consequence),
        related: [],
      });
    }
    // A parse error cascades through the rest of its document (739 problems in one file of a fresh
    // repository): the first of each document is the one to fix, and a file shows a few.
    const broken = file.docs.filter((d) => d.problems.length > 0);
    for (const [n, doc] of broken.entries()) {
      if (n === MAX_BROKEN_DOCS_SHOWN) break;
      for (const p of doc.problems.slice(0, 1)) {
        const more = n === MAX_BROKEN_DOCS_SHOWN - 1 && broken.length > MAX_BROKEN_DOCS_SHOWN && `${broken.length - MAX_BROKEN_DOCS_SHOWN} more documents of this file do not parse either.`;
        const message = /call stack/i.test(p.message) ? 'YAML is nested too deeply to be read' : p.message;
        ctx.diagnostics.push({
          rule: 'yaml-syntax',
          severity,
          file: file.path,
          range: p.range,
          message: syntaxMessage(message, doc.index + 1, ...consequence, more),
          related: [],
        });
      }
    }
  }
}

/** Documents of one file whose first parse error is reported. */
const MAX_BROKEN_DOCS_SHOWN = 10;

/** The parser's own words first (they say what is wrong), then its context lines and what it breaks. */
function syntaxMessage(parser: string, doc: number | undefined, ...details: (string | false)[]): string {
  const [first, ...context] = parser.split('\n');
  const where = doc === undefined ? '' : ` (document ${doc})`;
  const head = `${first.trim()}${where}: fix the YAML.`;
  return findingMessage(head, head.length > FIRST_LINE_MAX && first, context.join('\n').trim(), ...details);
}
