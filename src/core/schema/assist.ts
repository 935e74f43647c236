/**
 * Hover and completion inside a Kubernetes document, from the schema the cluster serves for it
 * (./catalog.ts): field names with their types and descriptions, enum values, required fields.
 * Pure: positions in, plain data out.
 */
import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { RepoModel } from '../model/graph';
import { asRecord, asString, type KubeObject } from '../model/objects';
import type { SourceFile, YamlDoc } from '../yaml/document';
import { markdownCode, markdownText } from '../escape/markdown';
import { bundledSchemas, schemasFor } from './catalog';
import { modelineOf } from './modeline';
import { settingSchemaOf, type RedHatSchemas } from './redHatSchemas';
import type { ClusterCrds } from './clusterCrds';
import { schemaAtPath, type Schema } from './structural';
import type { HelmReleaseNode } from '../model/graph';
import { valuesField, valuesFields, type ChartValues, type ValuesField } from '../helm/chartValues';

/** What the chart of a HelmRelease says of its values (engine/chartValues.ts), when the chart is at hand. */
export type ChartValuesLookup = (hr: HelmReleaseNode) => ChartValues | undefined;

export interface SchemaHover {
  readonly markdown: string;
  /** Offsets of the key the hover is about. */
  readonly start: number;
  readonly end: number;
}

export interface SchemaCompletion {
  readonly label: string;
  readonly kind: 'field' | 'value';
  readonly detail: string;
  readonly documentation: string;
  readonly insertText: string;
  /** A required field of its mapping. */
  readonly required: boolean;
  /**
   * The field with the fields it requires written out, as a VS Code snippet (tab stops, enum
   * choices); the editor uses it in place of insertText.
   */
  readonly snippet?: string;
}

type Path = (string | number)[];

export interface AssistOptions {
  /**
   * The Red Hat YAML extension is enabled: in a document under a `$schema` comment it completes
   * and hovers from the comment's schema, so only what it cannot know (workspace names) is offered.
   */
  readonly besideRedHatYaml?: boolean;
  /** Its `yaml.schemas` setting: files it gives a schema are its to complete and hover, as under a comment. */
  readonly redHatSchemas?: RedHatSchemas;
  /** The connected context's CRDs (or the last known ones). */
  readonly clusterCrds?: ClusterCrds;
}

/** Red Hat YAML completes and hovers this document itself (a `$schema` comment, its `yaml.schemas` setting). */
function judgedByRedHat(model: RepoModel, doc: YamlDoc, options: AssistOptions): boolean {
  return !!options.besideRedHatYaml && (!!modelineOf(doc) || settingSchemaOf(options.redHatSchemas, model.workspace.root, doc.file.path) !== undefined);
}

/** The schema of the document at `offset`, or undefined for a kind with no known schema. */
function schemaOf(model: RepoModel, file: SourceFile, offset: number, clusterCrds: ClusterCrds | undefined): { doc: YamlDoc; schema: Schema; origin: string } | undefined {
  const doc = file.docs.find((d) => offset >= d.range[0] && offset <= d.range[2]);
  const value = asRecord(doc?.value);
  const apiVersion = asString(value?.apiVersion);
  const kind = asString(value?.kind);
  if (!doc || !apiVersion || !kind) return undefined;
  const [source] = schemasFor(model, apiVersion, kind, clusterCrds);
  return source ? { doc, schema: source.schema, origin: source.origin } : undefined;
}

/** Hover on a key (or its scalar value): the field's type, description and allowed values. */
export function schemaHover(model: RepoModel, filePath: string, offset: number, chartValues?: ChartValuesLookup, options: AssistOptions = {}): SchemaHover | undefined {
  const file = model.workspace.files.get(filePath);
  if (!file) return undefined;
  const found = schemaOf(model, file, offset, options.clusterCrds);
  if (!found || judgedByRedHat(model, found.doc, options)) return undefined;
  const at = keyAtOffset(found.doc, offset);
  if (!at || at.path[0] === 'metadata' || at.path[0] === 'status') return undefined;
  const chart = chartValuesAt(model, found.doc, at.path, chartValues);
  if (chart) {
    const f = valuesField(chart.values, chart.path);
    return f ? { markdown: valuesHoverText(f, chart.values.chart), start: at.start, end: at.end } : undefined;
  }
  const field = schemaAtPath(found.schema, at.path);
  if (!field) return undefined;
  const parent = schemaAtPath(found.schema, at.path.slice(0, -1));
  const name = String(at.path[at.path.length - 1]);
  const required = !!parent?.required?.includes(name);
  const lines = [`**${markdownText(name)}** · ${typeName(field)}${required ? ' · required' : ''}`];
  // The CRD's description, line by line (a CRD in the repository is repository text too).
  if (field.description) lines.push('', ...field.description.split('\n').map(markdownText));
  if (field.enum?.length) lines.push('', `One of: ${field.enum.map((e) => markdownCode(JSON.stringify(e))).join(', ')}`);
  if (field.default !== undefined) lines.push('', `Default: ${markdownCode(JSON.stringify(field.default))}`);
  lines.push('', `Schema: ${markdownText(found.origin)}`);
  return { markdown: lines.join('\n'), start: at.start, end: at.end };
}

/**
 * Completion at `offset`: the fields of the mapping the cursor's indentation belongs to (those not
 * written yet), or after `key: ` the values its enum allows. `text` is the buffer as typed, which
 * may not parse: the enclosing keys are read from its indentation.
 */
export function schemaCompletion(model: RepoModel, filePath: string, offset: number, chartValues?: ChartValuesLookup, options: AssistOptions = {}): SchemaCompletion[] {
  const file = model.workspace.files.get(filePath);
  if (!file) return [];
  const found = schemaOf(model, file, Math.max(0, Math.min(offset, file.text.length - 1)), options.clusterCrds);
  if (!found) return [];
  const context = lineContext(file.text, offset);
  if (!context || context.path[0] === 'metadata' || context.path[0] === 'status') return [];
  // Under a `$schema` comment Red Hat YAML completes from the comment's schema: only the names of
  // the workspace's objects, which it cannot know, are offered beside it.
  if (judgedByRedHat(model, found.doc, options)) return (context.valueOf === 'name' && referenceNames(model, found.doc, context.path)) || [];
  const chart = chartValuesAt(model, found.doc, context.valueOf !== undefined ? [...context.path, context.valueOf] : [...context.path, ''], chartValues);
  if (chart) return valuesCompletion(chart.values, context.valueOf !== undefined ? chart.path : chart.path.slice(0, -1), context);
  if (context.valueOf === 'name') {
    const names = referenceNames(model, found.doc, context.path);
    if (names) return names;
  }
  if (context.valueOf !== undefined) {
    const field = schemaAtPath(found.schema, [...context.path, context.valueOf]);
    return (field?.enum ?? []).map((e) => ({
      label: String(e),
      kind: 'value' as const,
      detail: typeName(field!),
      documentation: '',
      insertText: typeof e === 'string' ? e : JSON.stringify(e),
      required: false,
    }));
  }
  const mapping = schemaAtPath(found.schema, context.path);
  const props = mapping?.properties;
  if (!props) return [];
  const written = new Set(context.siblings);
  const required = new Set(mapping.required ?? []);
  return Object.entries(props)
    .filter(([name]) => !written.has(name) && (context.path.length > 0 || !['apiVersion', 'kind', 'status'].includes(name)))
    .map(([name, s]) => ({
      label: name,
      kind: 'field' as const,
      detail: `${typeName(s)}${required.has(name) ? ' · required' : ''}`,
      documentation: s.description ?? '',
      insertText: s.type === 'object' || s.type === 'array' ? `${name}:\n` : `${name}: `,
      required: required.has(name),
      snippet: requiredSnippet(name, s),
    }))
    .sort((a, b) => Number(b.required) - Number(a.required) || (a.label < b.label ? -1 : 1));
}

/**
 * Whether the completion at `offset` in `file` (its current parse) reads the model beyond the
 * schemas bundled with the product: false for a document of a Flux or built-in kind (its schema is
 * the bundled one whatever the model holds) at a place that is neither a Flux reference's `name:`
 * (the objects it may name) nor under `spec.values` (a HelmRelease's chart): the answer comes from
 * the text alone then, and any model gives it.
 */
export function completionReadsModel(file: SourceFile, offset: number): boolean {
  const doc = file.docs.find((d) => offset >= d.range[0] && offset <= d.range[2]);
  const value = asRecord(doc?.value);
  const apiVersion = asString(value?.apiVersion);
  const kind = asString(value?.kind);
  if (!apiVersion || !kind || !bundledSchemas(apiVersion, kind).length) return true;
  const context = lineContext(file.text, offset);
  if (!context) return false;
  if (context.valueOf === 'name') return true;
  return context.path[0] === 'spec' && context.path[1] === 'values';
}

/** How deep required fields are written out: `sourceRef` → kind, name; a required mapping inside it once more. */
const SNIPPET_DEPTH = 2;

/**
 * `name:` with the fields its schema requires (an object's, or a list item's), each with a tab
 * stop, enum values as a choice; undefined when it requires none. Names and values come from
 * CRDs (repository text), so they are escaped for snippet syntax.
 */
export function requiredSnippet(name: string, schema: Schema): string | undefined {
  let stop = 0;
  const text = (v: string) => v.replace(/[$}\\]/g, '\\$&');
  const choice = (v: string) => v.replace(/[$}\\,|]/g, '\\$&');
  const fields = (s: Schema, indent: string, depth: number): string[] | undefined => {
    const req = (s.required ?? []).filter((r) => s.properties && Object.prototype.hasOwnProperty.call(s.properties, r));
    if (!req.length || depth > SNIPPET_DEPTH) return undefined;
    return req.flatMap((r) => {
      const sub = s.properties![r];
      const item = sub.type === 'array' ? sub.items : undefined;
      const nested = sub.type === 'object' ? fields(sub, `${indent}  `, depth + 1) : item?.type === 'object' ? fields(item, `${indent}    `, depth + 1) : undefined;
      if (nested && sub.type === 'array') return [`${indent}${text(r)}:`, nested[0].replace(`${indent}    `, `${indent}  - `), ...nested.slice(1)];
      if (nested) return [`${indent}${text(r)}:`, ...nested];
      stop++;
      if (sub.type === 'object') return [`${indent}${text(r)}:`, `${indent}  $${stop}`];
      if (sub.type === 'array') return [`${indent}${text(r)}:`, `${indent}  - $${stop}`];
      if (sub.enum?.length && sub.enum.every((e) => typeof e === 'string')) return [`${indent}${text(r)}: \${${stop}|${sub.enum.map((e) => choice(String(e))).join(',')}|}`];
      return [`${indent}${text(r)}: $${stop}`];
    });
  };
  const item = schema.type === 'array' ? schema.items : undefined;
  const body = schema.type === 'object' ? fields(schema, '  ', 1) : item?.type === 'object' ? fields(item, '    ', 1) : undefined;
  if (!body) return undefined;
  if (schema.type === 'array') body[0] = body[0].replace(/^ {4}/, '  - ');
  return [`${text(name)}:`, ...body].join('\n');
}

/**
 * For a place under a HelmRelease's `spec.values` (`path` ends at the key asked about): its chart's
 * values and the path inside them. Undefined elsewhere, or when the chart is not at hand.
 */
function chartValuesAt(model: RepoModel, doc: YamlDoc, path: Path, lookup: ChartValuesLookup | undefined): { values: ChartValues; path: Path } | undefined {
  if (!lookup || path.length < 3 || path[0] !== 'spec' || path[1] !== 'values' || asRecord(doc.value)?.kind !== 'HelmRelease') return undefined;
  for (const cluster of model.clusters) {
    for (const hr of cluster.helmReleases) {
      if (!atDoc(hr.applied.object, doc)) continue;
      const values = lookup(hr);
      if (values) return { values, path: path.slice(2) };
    }
  }
  return undefined;
}

function valuesHoverText(f: ValuesField, chart: string): string {
  const lines = [`**${markdownText(f.name)}** · ${markdownText(f.type)}${f.required ? ' · required' : ''}`];
  if (f.description) lines.push('', ...f.description.split('\n').map(markdownText));
  if (f.enum?.length) lines.push('', `One of: ${f.enum.map((e) => markdownCode(JSON.stringify(e))).join(', ')}`);
  if (f.default !== undefined && !f.nested) lines.push('', `Default: ${markdownCode(JSON.stringify(f.default))}`);
  lines.push('', `Chart: ${markdownText(chart)}`);
  return lines.join('\n');
}

/** Completion under spec.values: the chart's keys not yet written, or after `key: ` its enum (or boolean) values. */
function valuesCompletion(values: ChartValues, path: Path, context: { siblings: string[]; valueOf?: string }): SchemaCompletion[] {
  if (context.valueOf !== undefined) {
    const f = valuesField(values, path);
    const choices = f?.enum ?? (f?.type === 'boolean' ? [true, false] : []);
    return choices.map((e) => ({ label: String(e), kind: 'value' as const, detail: f!.type, documentation: f!.description, insertText: typeof e === 'string' ? e : JSON.stringify(e), required: false }));
  }
  const written = new Set(context.siblings);
  return valuesFields(values, path)
    .filter((f) => !written.has(f.name))
    .map((f) => ({
      label: f.name,
      kind: 'field' as const,
      detail: `${f.type}${f.required ? ' · required' : ''}${f.default !== undefined && !f.nested ? ` · default ${JSON.stringify(f.default)}` : ''}`,
      documentation: f.description,
      insertText: f.nested ? `${f.name}:\n` : `${f.name}: `,
      required: f.required,
    }))
    .sort((a, b) => Number(b.required) - Number(a.required) || (a.label < b.label ? -1 : 1));
}

/** What a Flux reference's `name:` may name, by where it is: the kinds and the namespace that matter. */
function referenceTarget(kind: string, path: Path): { kinds: string[]; what: string } | undefined {
  const p = path.map((x) => (typeof x === 'number' ? '#' : x)).join('.');
  if (p === 'spec.dependsOn.#') return { kinds: [kind], what: `a ${kind} it waits for` };
  if (kind === 'Kustomization' && p === 'spec.sourceRef') return { kinds: ['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'], what: 'the source it builds from' };
  if (kind === 'HelmRelease' && p === 'spec.chart.spec.sourceRef') return { kinds: ['HelmRepository', 'GitRepository', 'Bucket'], what: 'the source of its chart' };
  if (kind === 'HelmRelease' && p === 'spec.chartRef') return { kinds: ['OCIRepository', 'HelmChart', 'ExternalArtifact'], what: 'its chart' };
  if (kind === 'HelmRelease' && p === 'spec.valuesFrom.#') return { kinds: ['ConfigMap', 'Secret'], what: 'values for its chart' };
  if (kind === 'Kustomization' && p === 'spec.postBuild.substituteFrom.#') return { kinds: ['ConfigMap', 'Secret'], what: 'variables for its substitution' };
  return undefined;
}

/**
 * After `name: ` in a Flux reference (dependsOn, sourceRef, chartRef, valuesFrom, substituteFrom):
 * the names of the objects of the right kinds in the clusters that apply this document, those of
 * its own namespace first. Undefined where the key is not a reference, or the document is in no
 * cluster (the schema's answer stands then).
 */
function referenceNames(model: RepoModel, doc: YamlDoc, path: Path): SchemaCompletion[] | undefined {
  const value = asRecord(doc.value);
  const kind = asString(value?.kind);
  const target = kind && referenceTarget(kind, path);
  if (!target) return undefined;
  // The kind written beside `name:`, when the document parses (a sourceRef's `kind: GitRepository`).
  let node: unknown = value;
  for (const p of path) node = Array.isArray(node) ? node[p as number] : asRecord(node)?.[p];
  const written = asString(asRecord(node)?.kind);
  const kinds = written && target.kinds.includes(written) ? [written] : target.kinds;
  const out = new Map<string, SchemaCompletion & { own: boolean }>();
  for (const cluster of model.clusters) {
    const self = cluster.objects.find((o) => atDoc(o.object, doc));
    if (!self) continue;
    const ns = self.namespace ?? 'default';
    for (const o of cluster.objects) {
      if (!kinds.includes(o.kind) || o === self || o.name.includes('${')) continue;
      const own = (o.namespace ?? 'default') === ns;
      const key = `${o.kind}/${o.namespace ?? ''}/${o.name}`;
      if (out.has(key)) continue;
      out.set(key, {
        label: o.name,
        kind: 'value',
        detail: `${o.kind}${own ? '' : ` in namespace ${o.namespace ?? 'default'} (add namespace: ${o.namespace ?? 'default'})`}`,
        documentation: `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}, ${target.what}, in cluster '${cluster.name}'.`,
        insertText: o.name,
        required: false,
        own,
      });
    }
  }
  if (!out.size) return undefined;
  return [...out.values()].sort((a, b) => Number(b.own) - Number(a.own) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0)).map(({ own: _own, ...c }) => c);
}

/**
 * Whether `object` stands at `doc`: the same file and document index. Not the same YamlDoc object:
 * completion may answer from the model built before the last keystrokes (assistUnchanged), whose
 * objects hold that model's parse of the file.
 */
function atDoc(object: KubeObject, doc: YamlDoc): boolean {
  return object.file === doc.file.path && object.doc.index === doc.index;
}

/** Fields of a Flux Kustomization that decide what it applies (hence the names completion offers). */
const KUSTOMIZATION_STRUCTURE = ['path', 'sourceRef', 'components', 'patches', 'targetNamespace', 'namePrefix', 'nameSuffix', 'kubeConfig', 'postBuild', 'suspend'];
/** Fields of a HelmRelease that decide its chart (whose values completion offers) and what it installs. */
const HELMRELEASE_STRUCTURE = ['chart', 'chartRef', 'targetNamespace', 'releaseName', 'kubeConfig', 'postRenderers', 'suspend'];

/**
 * Whether completion in `now` (the current parse of an edited file) may answer from the model
 * built when the file was `before`: what that model knows and completion reads (schemas, the
 * objects a Flux reference may name, a HelmRelease's chart) is what a model rebuilt for `now` would
 * know. So: no CustomResourceDefinition in either version (the schemas), the same documents (kind,
 * apiVersion, name, namespace, by index), kustomize configs and Flux sources unchanged, and of Flux
 * Kustomizations and HelmReleases the fields that decide what they apply. The position and the
 * context are always read from `now`.
 */
export function assistUnchanged(before: SourceFile, now: SourceFile): boolean {
  if (before.text.includes('CustomResourceDefinition') || now.text.includes('CustomResourceDefinition')) return false;
  const a = before.docs;
  const b = now.docs;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = asRecord(a[i].value);
    const y = asRecord(b[i].value);
    if (!x || !y) {
      if (x || y || json(a[i].value) !== json(b[i].value)) return false;
      continue;
    }
    const apiVersion = asString(x.apiVersion);
    const kind = asString(x.kind);
    if (apiVersion !== asString(y.apiVersion) || kind !== asString(y.kind)) return false;
    const mx = asRecord(x.metadata);
    const my = asRecord(y.metadata);
    if (json(mx?.name) !== json(my?.name) || json(mx?.namespace) !== json(my?.namespace)) return false;
    const group = apiVersion?.split('/')[0] ?? '';
    const picked = (v: Record<string, unknown>, keys: string[]) => json(keys.map((k) => asRecord(v.spec)?.[k]));
    if (!apiVersion || !kind || group === 'kustomize.config.k8s.io' || group === 'source.toolkit.fluxcd.io' || group === 'source.extensions.fluxcd.io') {
      if (json(x) !== json(y)) return false;
    } else if (group === 'kustomize.toolkit.fluxcd.io' && kind === 'Kustomization') {
      if (picked(x, KUSTOMIZATION_STRUCTURE) !== picked(y, KUSTOMIZATION_STRUCTURE)) return false;
    } else if (group === 'helm.toolkit.fluxcd.io' && kind === 'HelmRelease') {
      if (picked(x, HELMRELEASE_STRUCTURE) !== picked(y, HELMRELEASE_STRUCTURE)) return false;
    }
  }
  return true;
}

const json = (v: unknown) => JSON.stringify(v) ?? 'undefined';

function typeName(s: Schema): string {
  if (s['x-kubernetes-int-or-string']) return 'integer or string';
  if (s.type === 'array') return s.items?.type ? `list of ${s.items.type}` : 'list';
  return s.type ?? 'any';
}

/** The key (and the path to it) whose key or scalar value holds `offset`. */
function keyAtOffset(doc: YamlDoc, offset: number): { path: Path; start: number; end: number } | undefined {
  let node: unknown = doc.node.contents;
  const path: Path = [];
  for (let depth = 0; depth < 200; depth++) {
    if (isMap(node)) {
      let next: unknown;
      for (const pair of node.items) {
        if (!isPair(pair) || !isScalar(pair.key) || !pair.key.range) continue;
        const key = pair.key;
        const [ks, ke] = [key.range![0], key.range![1]];
        if (offset >= ks && offset <= ke) return { path: [...path, String(key.value)], start: ks, end: ke };
        const value = pair.value as { range?: [number, number, number] } | null;
        if (value?.range && offset >= value.range[0] && offset <= value.range[1]) {
          if (isScalar(value)) return { path: [...path, String(key.value)], start: ks, end: ke };
          path.push(String(key.value));
          next = value;
          break;
        }
      }
      if (next === undefined) return undefined;
      node = next;
    } else if (isSeq(node)) {
      const index = node.items.findIndex((item) => {
        const r = (item as { range?: [number, number, number] } | null)?.range;
        return !!r && offset >= r[0] && offset <= r[1];
      });
      if (index < 0) return undefined;
      path.push(index);
      node = node.items[index];
    } else return undefined;
  }
  return undefined;
}

/**
 * From the text alone: the keys enclosing the cursor's line (by indentation, list items as index
 * 0), the keys already written beside it, and, after `key: ` on the cursor's line, that key.
 */
function lineContext(text: string, offset: number): { path: Path; siblings: string[]; valueOf?: string } | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  const indent = leadingSpaces(before);
  const current = parseKeyLine(before);
  const valueOf = current && before.slice(current.end).trim() === '' && before.endsWith(' ') ? current.key : undefined;
  const column = current ? current.column : indent;
  // Walk up: each line less indented than the current level is an enclosing key (or list item).
  const path: Path = [];
  const siblings: string[] = [];
  let level = column;
  let pos = lineStart - 1;
  let scanned = 0;
  while (pos > 0 && scanned++ < 5000) {
    const start = text.lastIndexOf('\n', pos - 1) + 1;
    const line = text.slice(start, pos);
    pos = start - 1;
    if (line.startsWith('---')) break;
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const parsed = parseKeyLine(line);
    const lineIndent = leadingSpaces(line);
    if (parsed && parsed.column === level && path.length === 0) siblings.push(parsed.key);
    if (lineIndent < level || (parsed?.dash && parsed.column === level)) {
      if (parsed?.dash && parsed.column === level) {
        // A list item holding this level: its other keys are siblings, the list is the parent.
        siblings.push(parsed.key);
        path.unshift(0);
        level = lineIndent;
        continue;
      }
      if (!parsed) {
        if (line.trimStart().startsWith('- ')) {
          path.unshift(0);
          level = lineIndent;
          continue;
        }
        return undefined;
      }
      path.unshift(parsed.key);
      level = lineIndent;
      if (level === 0) break;
    }
  }
  // `- key: ` on the cursor's line: the key is in a list item.
  if (current?.dash) path.push(0);
  // Keys after the cursor at the same level are written too, the cursor's own line included.
  const lineEnd = text.indexOf('\n', offset);
  const whole = parseKeyLine(text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd));
  if (whole && offset - lineStart <= whole.column) siblings.push(whole.key);
  let after = lineEnd;
  let count = 0;
  while (after >= 0 && after < text.length && count++ < 5000) {
    const end = text.indexOf('\n', after + 1);
    const line = text.slice(after + 1, end < 0 ? text.length : end);
    after = end;
    if (line.startsWith('---')) break;
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    if (leadingSpaces(line) < column) break;
    const parsed = parseKeyLine(line);
    if (parsed && parsed.column === column && !parsed.dash) siblings.push(parsed.key);
  }
  return { path, siblings, valueOf };
}

function leadingSpaces(line: string): number {
  let i = 0;
  while (i < line.length && line[i] === ' ') i++;
  return i;
}

/** `  key: …` or `  - key: …`: the key, its column, whether a list item starts there, and where the key ends. */
function parseKeyLine(line: string): { key: string; column: number; dash: boolean; end: number } | undefined {
  let i = leadingSpaces(line);
  let dash = false;
  if (line[i] === '-' && line[i + 1] === ' ') {
    dash = true;
    i += 2;
    while (line[i] === ' ') i++;
  }
  const start = i;
  while (i < line.length && /[A-Za-z0-9_.\-/]/.test(line[i])) i++;
  if (i === start || line[i] !== ':' || (line[i + 1] !== undefined && line[i + 1] !== ' ')) return undefined;
  return { key: line.slice(start, i), column: start, dash, end: i + 1 };
}
