/**
 * Beside the Red Hat YAML extension: a document headed by a `$schema` comment is judged by that
 * extension against the comment's schema, so this tool's schema findings on it would show twice.
 * They give way to one note on the comment, which says how many there are and from which schema;
 * removing the comment (the action on its line) shows them here. Only the editor does this; `check`
 * reports every finding.
 */
import type { RepoModel } from '../model/graph';
import { asRecord, asString } from '../model/objects';
import { schemasFor } from '../schema/catalog';
import { modelineOf, type Modeline } from '../schema/modeline';
import type { YamlDoc } from '../yaml/document';
import type { Diagnostic } from './types';

const SCHEMA_RULES = new Set(['schema-invalid', 'schema-unknown-field']);

export function deferToRedHatYaml(model: RepoModel, diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const deferred = new Map<YamlDoc, { modeline: Modeline; count: number }>();
  const kept = diagnostics.filter((d) => {
    if (!SCHEMA_RULES.has(d.rule)) return true;
    const file = model.workspace.files.get(d.file);
    if (!file) return true;
    const offset = file.lines.offset(d.range.start);
    const doc = file.docs.find((x) => offset >= x.range[0] && offset <= x.range[2]);
    const modeline = doc && modelineOf(doc);
    if (!doc || !modeline) return true;
    const entry = deferred.get(doc) ?? { modeline, count: 0 };
    entry.count++;
    deferred.set(doc, entry);
    return false;
  });
  for (const [doc, { modeline, count }] of deferred) {
    const value = asRecord(doc.value);
    const kind = asString(value?.kind) ?? 'document';
    const origin = schemasFor(model, asString(value?.apiVersion) ?? '', kind)[0]?.origin ?? 'the schema the cluster serves';
    const line = modeline.range.start.line;
    kept.push({
      rule: 'schema-comment',
      severity: 'info',
      file: doc.file.path,
      range: { start: { line, character: 0 }, end: { line, character: doc.file.text.slice(modeline.start, modeline.end).replace(/\r?\n$/, '').length } },
      message: `Red Hat YAML judges this ${kind} by ${modeline.url}, so ${count} finding(s) from ${origin}, the schema the cluster serves, are not shown twice: remove this comment to see them here.`,
      related: [],
    });
  }
  return kept;
}
