import { stringify } from 'yaml';
import { nodeAt, type YamlDoc } from '../yaml/document';
import type { TextEdit } from './types';
import { deleteKey, replaceKey, replaceNode, scalar } from './yamlEdit';

/**
 * Edits moving a Flux object to its served API version, including the fields the newer version
 * dropped: Kustomization `validation` (removed), `patchesStrategicMerge`/`patchesJson6902` (now
 * `patches`); GitRepository `gitImplementation` (removed); HelmRelease/HelmChart `valuesFile`
 * (now `valuesFiles`). Returns [undefined] when an edit cannot be made safely.
 */
export function migrationEdits(doc: YamlDoc, kind: string, _from: string, to: string): (TextEdit | undefined)[] {
  const edits: (TextEdit | undefined)[] = [replaceNode(doc, ['apiVersion'], scalar(to))];
  const spec = (doc.value as any)?.spec ?? {};
  const has = (path: (string | number)[]) => nodeAt(doc, path) !== undefined;
  switch (kind) {
    case 'Kustomization': {
      if (has(['spec', 'validation'])) edits.push(deleteKey(doc, ['spec'], 'validation'));
      const psm: unknown[] = Array.isArray(spec.patchesStrategicMerge) ? spec.patchesStrategicMerge : [];
      const j6902: any[] = Array.isArray(spec.patchesJson6902) ? spec.patchesJson6902 : [];
      if (psm.length || j6902.length) {
        const patches = [
          ...(Array.isArray(spec.patches) ? spec.patches : []),
          ...psm.map((p) => ({ patch: typeof p === 'string' ? p : stringify(p) })),
          ...j6902.map((p) => ({ ...(p.target ? { target: p.target } : {}), patch: stringify(p.patch ?? []) })),
        ];
        const block = stringify({ patches }, { blockQuote: 'literal' });
        const first = has(['spec', 'patchesStrategicMerge']) ? 'patchesStrategicMerge' : 'patchesJson6902';
        edits.push(replaceKey(doc, ['spec'], first, block));
        if (first === 'patchesStrategicMerge' && has(['spec', 'patchesJson6902'])) edits.push(deleteKey(doc, ['spec'], 'patchesJson6902'));
        if (has(['spec', 'patches'])) edits.push(deleteKey(doc, ['spec'], 'patches'));
      }
      break;
    }
    case 'GitRepository':
      if (has(['spec', 'gitImplementation'])) edits.push(deleteKey(doc, ['spec'], 'gitImplementation'));
      break;
    case 'HelmRelease':
      edits.push(...valuesFile(doc, ['spec', 'chart', 'spec'], spec.chart?.spec));
      break;
    case 'HelmChart':
      edits.push(...valuesFile(doc, ['spec'], spec));
      break;
  }
  return edits;
}

function valuesFile(doc: YamlDoc, path: string[], spec: any): (TextEdit | undefined)[] {
  if (typeof spec?.valuesFile !== 'string') return [];
  const files = [...(Array.isArray(spec.valuesFiles) ? spec.valuesFiles : []), spec.valuesFile];
  const out = [replaceKey(doc, path, 'valuesFile', stringify({ valuesFiles: files }))];
  if (Array.isArray(spec.valuesFiles)) out.push(deleteKey(doc, path, 'valuesFiles'));
  return out;
}
