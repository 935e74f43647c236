/**
 * Beside the Red Hat YAML extension: a document headed by a `$schema` comment, or in a file its
 * `yaml.schemas` setting gives a schema, is judged by that extension against that schema, so this
 * tool's schema findings on it would show twice. They give way to one note (on the comment, else
 * on the document's first line), which says how many there are and from which schema; removing the
 * comment (the action on its line), or the file from the setting, shows them here. Only the editor
 * does this; `check` reports every finding.
 */
import type { RepoModel } from '../model/graph';
import { asRecord, asString } from '../model/objects';
import { schemasFor } from '../schema/catalog';
import { modelineOf, type Modeline } from '../schema/modeline';
import { settingSchemaOf, type RedHatSchemas } from '../schema/redHatSchemas';
import type { YamlDoc } from '../yaml/document';
import type { Diagnostic } from './types';

const SCHEMA_RULES = new Set(['schema-invalid', 'schema-unknown-field']);

/** What has Red Hat YAML judge a document: its `$schema` comment, or the `yaml.schemas` setting's schema for its file. */
type Judge = { modeline: Modeline } | { setting: string };

export function redHatJudge(doc: YamlDoc, root: string, schemas: RedHatSchemas | undefined): Judge | undefined {
  const modeline = modelineOf(doc);
  if (modeline) return { modeline };
  const setting = settingSchemaOf(schemas, root, doc.file.path);
  return setting === undefined ? undefined : { setting };
}

export function deferToRedHatYaml(model: RepoModel, diagnostics: readonly Diagnostic[], schemas?: RedHatSchemas): Diagnostic[] {
  const deferred = new Map<YamlDoc, { judge: Judge; count: number }>();
  const kept = diagnostics.filter((d) => {
    if (!SCHEMA_RULES.has(d.rule)) return true;
    const file = model.workspace.files.get(d.file);
    if (!file) return true;
    const offset = file.lines.offset(d.range.start);
    const doc = file.docs.find((x) => offset >= x.range[0] && offset <= x.range[2]);
    const judge = doc && redHatJudge(doc, model.workspace.root, schemas);
    if (!doc || !judge) return true;
    const entry = deferred.get(doc) ?? { judge, count: 0 };
    entry.count++;
    deferred.set(doc, entry);
    return false;
  });
  for (const [doc, { judge, count }] of deferred) {
    const value = asRecord(doc.value);
    const kind = asString(value?.kind) ?? 'document';
    const origin = schemasFor(model, asString(value?.apiVersion) ?? '', kind)[0]?.origin ?? 'the schema the cluster serves';
    if ('modeline' in judge) {
      const { modeline } = judge;
      const line = modeline.range.start.line;
      kept.push({
        rule: 'schema-comment',
        severity: 'info',
        file: doc.file.path,
        range: { start: { line, character: 0 }, end: { line, character: doc.file.text.slice(modeline.start, modeline.end).replace(/\r?\n$/, '').length } },
        message: `Red Hat YAML judges this ${kind} by ${modeline.url}, so ${count} finding(s) from ${origin}, the schema the cluster serves, are not shown twice: remove this comment to see them here.`,
        related: [],
      });
    } else {
      const start = doc.file.lines.position(doc.start);
      const lineEnd = doc.file.text.indexOf('\n', doc.start);
      const end = doc.file.lines.position(lineEnd < 0 ? doc.file.text.length : lineEnd);
      kept.push({
        rule: 'schema-comment',
        severity: 'info',
        file: doc.file.path,
        range: { start, end },
        message: `Red Hat YAML judges this ${kind} by ${judge.setting} (its yaml.schemas setting), so ${count} finding(s) from ${origin}, the schema the cluster serves, are not shown twice: take this file out of that setting to see them here.`,
        related: [],
      });
    }
  }
  return kept;
}
