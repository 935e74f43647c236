import type { RepoModel } from '../model/graph';
import type { KubeObject } from '../model/objects';
import { nodeAt, type PathSegment, type SourceFile, type YamlDoc } from '../yaml/document';
import type { Position, Range } from '../yaml/lines';

/** A place navigation can jump to. */
export interface NavTarget {
  /** Absolute path of the file to open. */
  readonly file: string;
  readonly range: Range;
  /** Set when the target is a Kubernetes object document. */
  readonly objectId?: string;
  /** Set when the reference names a folder without a kustomization file; `file` is one manifest in it. */
  readonly folder?: string;
}

/** Objects per file, including the ones the model infers (bootstrap); cached per model build. */
const objectsByFileCache = new WeakMap<RepoModel, Map<string, KubeObject[]>>();

export function objectsByFile(model: RepoModel): Map<string, KubeObject[]> {
  let map = objectsByFileCache.get(model);
  if (map) return map;
  map = new Map();
  for (const o of model.allObjects) {
    const list = map.get(o.doc.file.path);
    if (list) list.push(o);
    else map.set(o.doc.file.path, [o]);
  }
  objectsByFileCache.set(model, map);
  return map;
}

export function docAtOffset(file: SourceFile, offset: number): YamlDoc | undefined {
  // A document owns the text up to the next one's `---`, so comments above an object belong to it.
  let found: YamlDoc | undefined;
  for (const doc of file.docs) {
    if (doc.range[0] <= offset) found = doc;
    else break;
  }
  return found && offset <= found.end ? found : file.docs.find((d) => offset >= d.start && offset <= d.end);
}

/** The written (not inferred) object whose document contains `offset`. */
export function objectAtOffset(model: RepoModel, file: SourceFile, offset: number): KubeObject | undefined {
  const doc = docAtOffset(file, offset);
  if (!doc) return undefined;
  return objectsByFile(model)
    .get(file.path)
    ?.find((o) => o.doc === doc && !o.synthetic);
}

/** Exact range of the node at `path`, or undefined when it is missing (no ancestor fallback). */
export function exactRange(doc: YamlDoc, path: readonly PathSegment[]): Range | undefined {
  const node = nodeAt(doc, path);
  if (!node?.range) return undefined;
  return doc.file.lines.range(node.range[0], node.range[1]);
}

export function contains(range: Range, pos: Position): boolean {
  const after = pos.line > range.start.line || (pos.line === range.start.line && pos.character >= range.start.character);
  const before = pos.line < range.end.line || (pos.line === range.end.line && pos.character <= range.end.character);
  return after && before;
}

/** Where to land on an object: its `metadata.name` value, or the document start. */
export function objectTarget(o: KubeObject): NavTarget {
  const name = o.synthetic ? undefined : exactRange(o.doc, ['metadata', 'name']);
  if (name) return { file: o.doc.file.path, range: name, objectId: o.id };
  const pos = o.doc.file.lines.position(o.doc.start);
  return { file: o.doc.file.path, range: { start: pos, end: pos }, objectId: o.id };
}

export function fileTarget(file: string): NavTarget {
  const zero = { line: 0, character: 0 };
  return { file, range: { start: zero, end: zero } };
}
