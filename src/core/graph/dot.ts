import { dotString } from '../escape/dot';
import { flowOf, nodeCaption } from './flow';
import type { DependencyGraph, GraphEdge, GraphNode } from './types';

/**
 * Graphviz DOT of the graph (`gitops-preview graph --format dot | dot -Tsvg`): one subgraph per
 * cluster, laid out left to right in Flux's order; problem edges red with the message as tooltip.
 */
export function toDot(graph: DependencyGraph): string {
  const out = ['digraph "gitops-preview" {', '  rankdir=LR;', '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];', '  edge [fontname="Helvetica", fontsize=9];'];
  graph.clusters.forEach((cluster, ci) => {
    const name = (id: string) => dotString(`${ci}:${id}`);
    out.push(`  subgraph ${dotString(`cluster_${ci}`)} {`, `    label=${dotString(`cluster ${cluster.name}`)};`);
    for (const node of cluster.nodes) out.push(`    ${name(node.id)} [${attributes(nodeAttributes(node))}];`);
    for (const edge of cluster.edges) {
      const { first, then } = flowOf(edge);
      out.push(`    ${name(first)} -> ${name(then)} [${attributes(edgeAttributes(edge))}];`);
    }
    out.push('  }');
  });
  out.push('}');
  return out.join('\n') + '\n';
}

const KIND_FILL: Record<string, string> = { Kustomization: '#dbe8fb', HelmRelease: '#dcf2e1' };

function nodeAttributes(node: GraphNode): Record<string, string> {
  const { title, subtitle } = nodeCaption(node);
  const attrs: Record<string, string> = {
    label: `${title}\n${subtitle}`,
    tooltip: `${node.id} (${node.file}:${node.line})`,
    fillcolor: KIND_FILL[node.kind] ?? '#eeeeee',
  };
  if (!KIND_FILL[node.kind]) attrs.shape = 'cylinder';
  if (node.missing) Object.assign(attrs, { style: 'rounded,dashed', color: '#c62828', fontcolor: '#c62828', tooltip: `${node.id}: not found in the cluster` });
  else if (node.problems?.some((p) => p.severity === 'error')) attrs.color = '#c62828';
  return attrs;
}

function edgeAttributes(edge: GraphEdge): Record<string, string> {
  const attrs: Record<string, string> = { tooltip: edge.type };
  if (edge.type === 'applies') Object.assign(attrs, { style: 'dashed', color: '#888888', arrowhead: 'empty' });
  if (edge.type === 'source') Object.assign(attrs, { style: 'dotted', color: '#888888', arrowhead: 'dot' });
  if (edge.absent) attrs.style = 'dashed';
  if (edge.problem) Object.assign(attrs, { color: '#c62828', fontcolor: '#c62828', penwidth: '2', label: edge.problem.rule, tooltip: edge.problem.message });
  return attrs;
}

function attributes(attrs: Record<string, string>): string {
  return Object.entries(attrs)
    .map(([k, v]) => `${k}=${dotString(v)}`)
    .join(', ');
}
