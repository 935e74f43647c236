import type { CheckContext } from '../checks/context';
import type { Diagnostic, RuleId } from '../checks/types';
import type { AppliedObject, ClusterModel } from '../model/graph';
import { relativePath } from '../tree/treeData';
import { rangeAt, type YamlDoc } from '../yaml/document';
import type { Position } from '../yaml/lines';
import type { GraphEdge, GraphNode, GraphProblem } from './types';

/**
 * The checks' diagnostics, looked up by where they are reported: the graph does not re-derive a
 * problem, it finds the finding the checks already made at the edge's or node's YAML location.
 * Lookups are by key or by binary search, never a scan per edge or node: a Kustomization with
 * 50,000 missing dependsOn entries has 50,000 findings in one file.
 */
export class DiagnosticIndex {
  /** Each file's diagnostics, by start line. */
  private readonly byFile = new Map<string, Diagnostic[]>();
  private readonly byPosition = new Map<string, Diagnostic[]>();
  private readonly crdOrder: Diagnostic[] = [];

  constructor(
    private readonly root: string,
    diagnostics: readonly Diagnostic[],
  ) {
    for (const d of diagnostics) {
      push(this.byFile, d.file, d);
      push(this.byPosition, positionKey(d.file, d.range.start), d);
      // Each place of a merged finding draws its own edge.
      if (d.rule === 'crd-order') this.crdOrder.push(...(d.places ?? [d]));
    }
    for (const list of this.byFile.values()) list.sort((a, b) => a.range.start.line - b.range.start.line);
  }

  /** The first diagnostic (in `rules` order) of those rules reported exactly at `pos`. */
  at(file: string, pos: Position, rules: readonly RuleId[]): GraphProblem | undefined {
    const here = (this.byPosition.get(positionKey(file, pos)) ?? []).filter((d) => rules.includes(d.rule));
    if (!here.length) return undefined;
    here.sort((a, b) => rules.indexOf(a.rule) - rules.indexOf(b.rule));
    return problemOf(here[0]);
  }

  /** Every diagnostic inside a node's document becomes one of the node's problems. */
  attachToNodes(ids: Map<AppliedObject, string>, nodes: Map<string, GraphNode>): void {
    const done = new Set<string>();
    for (const [applied, id] of ids) {
      if (done.has(id) || applied.object.synthetic) continue;
      done.add(id);
      const doc = applied.object.doc;
      const { start, end } = docLines(doc);
      const inFile = this.byFile.get(doc.file.path) ?? [];
      for (let i = firstAtOrAfter(inFile, start, (d) => d.range.start.line); i < inFile.length && inFile[i].range.start.line <= end; i++) {
        addProblem(nodes.get(id)!, { ...problemOf(inFile[i]), line: inFile[i].range.start.line + 1 });
      }
    }
  }

  /**
   * `crd-order` is reported on the custom resource, which is no node: it becomes a problem of the
   * Kustomization applying it and an edge to the Kustomization providing the CRD — the dependsOn
   * the repository lacks (`absent`), or, when one Kustomization applies both the chart and the
   * resource, its `applies` edge to the HelmRelease installing the CRDs.
   */
  attachCrdOrder(
    ctx: CheckContext,
    cluster: ClusterModel,
    ids: Map<AppliedObject, string>,
    nodes: Map<string, GraphNode>,
    addEdge: (edge: GraphEdge) => void,
  ): void {
    if (!this.crdOrder.length) return;
    const files = new Set(this.crdOrder.map((d) => d.file));
    // Each file's objects by last line: the one holding a line is the first ending at or after it.
    const objectsByFile = new Map<string, { applied: AppliedObject; start: number; end: number }[]>();
    for (const a of cluster.objects) {
      if (files.has(a.object.file)) push(objectsByFile, a.object.file, { applied: a, ...docLines(a.object.doc) });
    }
    for (const list of objectsByFile.values()) list.sort((a, b) => a.end - b.end);
    // Related locations point at `metadata.name` of the Kustomization or HelmRelease involved.
    const byName = new Map<string, AppliedObject>();
    for (const applied of ids.keys()) {
      if (applied.object.synthetic || !ctx.isReal(applied.object.doc)) continue;
      const pos = rangeAt(applied.object.doc, ['metadata', 'name']).start;
      byName.set(positionKey(applied.object.file, pos), applied);
    }
    for (const d of this.crdOrder) {
      const inFile = objectsByFile.get(d.file) ?? [];
      const line = d.range.start.line;
      // Documents do not overlap: the first ending at or after the line holds it, or none does. A
      // document several Kustomizations apply (a component) is one object per applier: the finding
      // is the one whose applier it names.
      const at = firstAtOrAfter(inFile, line, (o) => o.end);
      const first = inFile[at];
      if (!first || first.start > line) continue;
      const named = new Set(d.related.map((r) => byName.get(positionKey(r.file, r.range.start))));
      let x = first.applied.appliedBy;
      for (let i = at; i < inFile.length && inFile[i].end === first.end; i++) {
        const by = inFile[i].applied.appliedBy;
        if (by && named.has(by.applied)) {
          x = by;
          break;
        }
      }
      const from = x && ids.get(x.applied);
      if (!x || !from) continue;
      const applier = x.applied;
      const problem = problemOf(d);
      addProblem(nodes.get(from)!, { ...problem, line: d.range.start.line + 1, file: relativePath(this.root, d.file) });
      const involved = d.related.map((r) => byName.get(positionKey(r.file, r.range.start))).filter((a): a is AppliedObject => !!a && a !== applier);
      const provider = involved.find((a) => a.kind === 'Kustomization');
      const release = involved.find((a) => a.kind === 'HelmRelease' && a.appliedBy === x);
      if (provider) addEdge({ from, to: ids.get(provider)!, type: 'dependsOn', absent: true, problem });
      else if (release) addEdge({ from, to: ids.get(release)!, type: 'applies', problem });
    }
  }
}

function problemOf(d: Diagnostic): GraphProblem {
  return { rule: d.rule, severity: d.severity, message: d.message };
}

/** Keys of the problems each node has, so that adding one is not a scan of the others. */
const problemKeys = new WeakMap<GraphNode, Set<string>>();

function addProblem(node: GraphNode, problem: GraphProblem): void {
  const list = (node.problems ??= []);
  let keys = problemKeys.get(node);
  if (!keys) problemKeys.set(node, (keys = new Set(list.map(problemKey))));
  const key = problemKey(problem);
  if (keys.has(key)) return;
  keys.add(key);
  list.push(problem);
}

function problemKey(p: GraphProblem): string {
  return `${p.rule}|${p.line}|${p.message}`;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Index of the first item whose `key` is at least `value`, in a list sorted by `key`. */
function firstAtOrAfter<T>(list: readonly T[], value: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function positionKey(file: string, pos: Position): string {
  return `${file}|${pos.line}:${pos.character}`;
}

/** 0-based first and last line of a document. */
function docLines(doc: YamlDoc): { start: number; end: number } {
  const lines = doc.file.lines;
  return { start: lines.position(doc.start).line, end: lines.position(doc.end).line };
}
