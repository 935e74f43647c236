import { treeJson, type TreeNodeEntry } from '../src/core/tree/treeData';
import { corpusRepo } from '../test/unit/helpers';
import { checkModel } from '../src/core/checks';
for (const n of ['flux2-kustomize-helm-example','flux2-multi-tenancy','flux2-hub-spoke-example','flux2-monitoring-example','bjw-s-labs-home-ops','allenporter-k8s-gitops','billimek-k8s-gitops','controlplaneio-fluxcd-d2-fleet','joryirving-home-ops']) {
  const m = corpusRepo(n).model();
  const j = treeJson(m);
  const sources: Record<string, number> = {};
  for (const s of j.sources) sources[s.kind] = (sources[s.kind] ?? 0) + 1;
  const counts: Record<string, number> = {};
  for (const d of checkModel(m).diagnostics) { const k = `${d.rule}${d.severity === 'error' ? '' : ' ' + d.severity}`; counts[k] = (counts[k] ?? 0) + 1; }
  console.log(`'${n}': { clusters: ${JSON.stringify(j.clusters.map((c) => c.name))}, kustomizations: ${j.kustomizations.length}, helmReleases: ${j.helmReleases.length}, sources: ${JSON.stringify(sources)}, unapplied: ${j.unapplied.length} },`, JSON.stringify(counts));
}
