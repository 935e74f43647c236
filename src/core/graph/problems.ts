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
 */
export class DiagnosticIndex {
  private readonly byFile = new Map<string, Diagnostic[]>();
  private readonly crdOrder: Diagnostic[] = [];

  constructor(
    private readonly root: string,
    diagnostics: readonly Diagnostic[],
  ) {
    for (const d of diagnostics) {
      const list = this.byFile.get(d.file);
      if (list) list.push(d);
      else this.byFile.set(d.file, [d]);
      if (d.rule === 'crd-order') this.crdOrder.push(d);
    }
  }

  /** The first diagnostic (in `rules` order) of those rules reported exactly at `pos`. */
  at(file: string, pos: Position, rules: readonly RuleId[]): GraphProblem | undefined {
    const here = (this.byFile.get(file) ?? []).filter((d) => samePosition(d.range.start, pos) && rules.includes(d.rule));
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
      for (const d of this.byFile.get(doc.file.path) ?? []) {
        const line = d.range.start.line;
        if (line >= start && line <= end) addProblem(nodes.get(id)!, { ...problemOf(d), line: line + 1 });
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
    const objectsByFile = new Map<string, AppliedObject[]>();
    for (const a of cluster.objects) {
      if (!files.has(a.object.file)) continue;
      const list = objectsByFile.get(a.object.file);
      if (list) list.push(a);
      else objectsByFile.set(a.object.file, [a]);
    }
    // Related locations point at `metadata.name` of the Kustomization or HelmRelease involved.
    const byName = new Map<string, AppliedObject>();
    for (const applied of ids.keys()) {
      if (applied.object.synthetic || !ctx.isReal(applied.object.doc)) continue;
      const pos = rangeAt(applied.object.doc, ['metadata', 'name']).start;
      byName.set(positionKey(applied.object.file, pos), applied);
    }
    for (const d of this.crdOrder) {
      const cr = (objectsByFile.get(d.file) ?? []).find((a) => {
        const { start, end } = docLines(a.object.doc);
        return d.range.start.line >= start && d.range.start.line <= end;
      });
      const x = cr?.appliedBy;
      const from = x && ids.get(x.applied);
      if (!from) continue;
      const problem = problemOf(d);
      addProblem(nodes.get(from)!, { ...problem, line: d.range.start.line + 1, file: relativePath(this.root, d.file) });
      const involved = d.related.map((r) => byName.get(positionKey(r.file, r.range.start))).filter((a): a is AppliedObject => !!a && a !== x.applied);
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

function addProblem(node: GraphNode, problem: GraphProblem): void {
  const list = (node.problems ??= []);
  if (!list.some((p) => p.rule === problem.rule && p.message === problem.message && p.line === problem.line)) list.push(problem);
}

function samePosition(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}

function positionKey(file: string, pos: Position): string {
  return `${file}|${pos.line}:${pos.character}`;
}

/** 0-based first and last line of a document. */
function docLines(doc: YamlDoc): { start: number; end: number } {
  const lines = doc.file.lines;
  return { start: lines.position(doc.start).line, end: lines.position(doc.end).line };
}
