import type { Diagnostic } from '../checks/types';
import type { RepoModel } from '../model/graph';
import type { YamlDoc } from '../yaml/document';
import { migrationEdits } from './apiVersion';
import type { QuickFix, TextEdit } from './types';
import { appendItem, renameKey, replaceNode, scalar, setKey } from './yamlEdit';

export * from './types';

/**
 * Quick fixes for a diagnostic, as text edits against the model's current text (editor buffers
 * included). Returns nothing when the document changed shape since the check ran.
 */
export function quickFixes(diagnostic: Diagnostic, model: RepoModel): QuickFix[] {
  const hint = diagnostic.fix;
  if (!hint) return [];
  const doc = model.workspace.files.get(hint.file)?.docs[hint.docIndex];
  if (!doc) return [];
  const fixes: QuickFix[] = [];
  const push = (title: string, edits: (TextEdit | undefined)[], preferred = false) => {
    if (edits.length && edits.every((e): e is TextEdit => !!e)) fixes.push({ title, edits, preferred });
  };
  switch (hint.kind) {
    case 'replace-scalar':
      hint.candidates.forEach((c, i) => push(c.title, [replaceNode(doc, hint.path, scalar(c.value))], i === 0));
      break;
    case 'set-namespace':
      push(`Set namespace: ${hint.namespace}`, [setKey(doc, hint.path, 'namespace', scalar(hint.namespace))], true);
      break;
    case 'add-depends-on':
      push(`Add dependsOn '${hint.namespace ? `${hint.namespace}/` : ''}${hint.name}'`, [addDependsOn(doc, hint.name, hint.namespace)], true);
      break;
    case 'add-wait': {
      push('Add wait: true', [setKey(doc, ['spec'], 'wait', 'true')], true);
      const hr = hint.helmRelease;
      const check = `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nname: ${scalar(hr.name)}\nnamespace: ${scalar(hr.namespace)}`;
      const existing = doc.value && (doc.value as any).spec?.healthChecks;
      push(
        `Add a healthCheck for HelmRelease ${hr.namespace}/${hr.name}`,
        [Array.isArray(existing) && existing.length ? appendItem(doc, ['spec', 'healthChecks'], check) : setKey(doc, ['spec'], 'healthChecks', `\n- ${check.split('\n').join('\n  ')}`)],
      );
      break;
    }
    case 'rename-key':
      hint.candidates.forEach((c, i) => push(`Change to '${c}'`, [renameKey(doc, hint.path, hint.key, c)], i === 0));
      break;
    case 'migrate-api-version':
      push(`Migrate to ${hint.to}`, migrationEdits(doc, hint.kind_, hint.from, hint.to), true);
      break;
  }
  return fixes;
}

function addDependsOn(doc: YamlDoc, name: string, namespace: string | undefined): TextEdit | undefined {
  const item = `name: ${scalar(name)}${namespace ? `\nnamespace: ${scalar(namespace)}` : ''}`;
  const existing = (doc.value as any)?.spec?.dependsOn;
  if (Array.isArray(existing) && existing.length) return appendItem(doc, ['spec', 'dependsOn'], item);
  return setKey(doc, ['spec'], 'dependsOn', `\n- ${item.split('\n').join('\n  ')}`);
}
