import { mermaidLabel } from '../escape/mermaid';
import { flowOf, nodeCaption } from './flow';
import type { DependencyGraph } from './types';

/**
 * A Mermaid flowchart of the graph, to paste into Markdown. Object ids (`Kind/ns/name`) are not
 * valid Mermaid ids, so nodes get generated ids (`c0n3`) and the names go into quoted labels.
 */
export function toMermaid(graph: DependencyGraph): string {
  const out = ['flowchart LR'];
  const links: { index: number; problem: boolean }[] = [];
  const classes = new Map<string, string[]>();
  let linkCount = 0;
  graph.clusters.forEach((cluster, ci) => {
    const ids = new Map(cluster.nodes.map((n, i) => [n.id, `c${ci}n${i}`]));
    out.push(`  subgraph c${ci}["${mermaidLabel(`cluster ${cluster.name}`)}"]`);
    for (const node of cluster.nodes) {
      const { title, subtitle } = nodeCaption(node);
      const id = ids.get(node.id)!;
      out.push(`    ${id}${shape(node.kind, `${mermaidLabel(title)}<br/>${mermaidLabel(subtitle)}`)}`);
      const cls = node.missing ? 'missing' : node.kind === 'Kustomization' ? 'ks' : node.kind === 'HelmRelease' ? 'hr' : 'source';
      classes.set(cls, [...(classes.get(cls) ?? []), id]);
    }
    out.push('  end');
    for (const edge of cluster.edges) {
      const { first, then } = flowOf(edge);
      const arrow = edge.type === 'dependsOn' && !edge.absent ? '-->' : edge.type === 'source' ? '-.-o' : '-.->';
      const label = edge.problem ? `|"${mermaidLabel(edge.problem.rule)}"|` : '';
      out.push(`  ${ids.get(first)} ${arrow}${label} ${ids.get(then)}`);
      links.push({ index: linkCount++, problem: !!edge.problem });
    }
  });
  out.push(
    '  classDef ks fill:#dbe8fb,stroke:#4a78c2',
    '  classDef hr fill:#dcf2e1,stroke:#3f8f57',
    '  classDef source fill:#eeeeee,stroke:#888888',
    '  classDef missing fill:#ffffff,stroke:#c62828,stroke-dasharray:4 3,color:#c62828',
  );
  for (const [cls, ids] of classes) out.push(`  class ${ids.join(',')} ${cls}`);
  const problems = links.filter((l) => l.problem).map((l) => l.index);
  if (problems.length) out.push(`  linkStyle ${problems.join(',')} stroke:#c62828,stroke-width:2px,color:#c62828`);
  return out.join('\n') + '\n';
}

function shape(kind: string, label: string): string {
  if (kind === 'Kustomization' || kind === 'HelmRelease') return `["${label}"]`;
  return `[("${label}")]`;
}
