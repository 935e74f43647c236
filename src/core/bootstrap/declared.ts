/**
 * `bootstrap` in `.gitops-preview.yaml`: what is installed before Flux that no reader finds (a
 * cloud provider's add-on, a script outside the repository). Entries:
 *
 *   bootstrap:
 *     - monitoring.coreos.com                        # every CRD of an API group
 *     - crd: servicemonitors.monitoring.coreos.com   # one CRD, <plural>.<group>
 *     - chart: cert-manager                          # a Helm chart (its CRD groups by the known-charts table)
 *       repo: https://charts.jetstack.io
 *     - group: gateway.networking.k8s.io
 *       cluster: production                          # only for that cluster (or clusters: [a, b])
 */
import type { Workspace } from '../workspace/workspace';
import { rangeAt, type PathSegment, type YamlDoc } from '../yaml/document';
import { asRecord, asString } from '../model/objects';
import { CONFIG_FILE } from '../model/config';
import { chartName, KNOWN_CHARTS } from '../checks/knownCharts';
import type { BootstrapFact } from './facts';

export interface DeclaredBootstrap {
  readonly facts: BootstrapFact[];
  /** Entries not understood, at their YAML path, for config-invalid. */
  readonly problems: { path: PathSegment[]; message: string }[];
  /** Cluster names entries name, at their YAML path (checked against the model's clusters). */
  readonly clusterRefs: { path: PathSegment[]; name: string }[];
}

/** A DNS subdomain of at least two labels, as Kubernetes API groups are; checked label by label (no regex backtracking). */
export function isApiGroup(s: string): boolean {
  if (s.length > 253) return false;
  const labels = s.split('.');
  return labels.length >= 2 && labels.every((l) => l.length > 0 && l.length <= 63 && /^[a-z0-9-]+$/.test(l) && !l.startsWith('-') && !l.endsWith('-'));
}

const MAP_KEYS = ['group', 'crd', 'chart', 'repo', 'cluster', 'clusters'];

export function declaredBootstrap(ws: Workspace): DeclaredBootstrap {
  const out: DeclaredBootstrap = { facts: [], problems: [], clusterRefs: [] };
  const doc = ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0];
  const list = asRecord(doc?.value)?.bootstrap;
  if (!doc || list === undefined) return out;
  if (!Array.isArray(list)) {
    out.problems.push({ path: ['bootstrap'], message: '`bootstrap` must be a list of API groups, `crd: <plural>.<group>` or `chart: <name>` entries.' });
    return out;
  }
  list.forEach((entry, i) => readEntry(doc, entry, i, out));
  return out;
}

function readEntry(doc: YamlDoc, entry: unknown, i: number, out: DeclaredBootstrap): void {
  const at: PathSegment[] = ['bootstrap', i];
  const base = { reader: 'config' as const, file: doc.file.path, line: rangeAt(doc, at).start.line + 1 };
  const problem = (message: string, path: PathSegment[] = at): void => void out.problems.push({ path, message });
  if (typeof entry === 'string') {
    if (!isApiGroup(entry)) return problem(`'${entry}' is not an API group (such as monitoring.coreos.com); write \`crd: <plural>.<group>\` for one CRD or \`chart: <name>\` for a chart.`);
    out.facts.push({ ...base, what: 'crd-group', name: entry, groups: [entry] });
    return;
  }
  const m = asRecord(entry);
  if (!m) return problem('A `bootstrap` entry must be an API group or a map with `group`, `crd` or `chart`.');
  for (const key of Object.keys(m)) if (!MAP_KEYS.includes(key)) problem(`'${key}' is not a key of a \`bootstrap\` entry: it knows ${MAP_KEYS.join(', ')}.`, [...at, key]);
  const given = ['group', 'crd', 'chart'].filter((k) => m[k] !== undefined);
  if (given.length !== 1) return problem('A `bootstrap` entry names exactly one of `group`, `crd` or `chart`.');
  const clusters: string[] = [];
  if (m.cluster !== undefined) {
    if (typeof m.cluster !== 'string') return problem('`cluster` must be a cluster name.', [...at, 'cluster']);
    clusters.push(m.cluster);
    out.clusterRefs.push({ path: [...at, 'cluster'], name: m.cluster });
  }
  if (m.clusters !== undefined) {
    if (!Array.isArray(m.clusters) || !m.clusters.every((c) => typeof c === 'string')) return problem('`clusters` must be a list of cluster names.', [...at, 'clusters']);
    m.clusters.forEach((c: string, j: number) => {
      clusters.push(c);
      out.clusterRefs.push({ path: [...at, 'clusters', j], name: c });
    });
  }
  const scoped = { ...base, ...(clusters.length ? { clusters } : {}) };
  const value = asString(m[given[0]]);
  if (!value) return problem(`\`${given[0]}\` must be a string.`, [...at, given[0]]);
  if (given[0] === 'group') {
    if (!isApiGroup(value)) return problem(`'${value}' is not an API group (such as monitoring.coreos.com).`, [...at, 'group']);
    out.facts.push({ ...scoped, what: 'crd-group', name: value, groups: [value] });
  } else if (given[0] === 'crd') {
    const dot = value.indexOf('.');
    const group = value.slice(dot + 1);
    if (dot <= 0 || !/^[a-z0-9]+$/.test(value.slice(0, dot)) || !isApiGroup(group)) return problem(`'${value}' is not a CRD name: write <plural>.<group>, such as servicemonitors.monitoring.coreos.com.`, [...at, 'crd']);
    out.facts.push({ ...scoped, what: 'crd', name: value, groups: [group] });
  } else {
    if (m.repo !== undefined && typeof m.repo !== 'string') return problem('`repo` must be the chart repository URL.', [...at, 'repo']);
    const name = chartName(value);
    // Declared installed: its CRDs are taken as installed too, even for a chart that installs them only on request.
    out.facts.push({ ...scoped, what: 'chart', name, groups: [...(KNOWN_CHARTS[name]?.groups ?? [])], ...(m.repo ? { via: `chart ${name} from ${m.repo as string}` } : {}) });
  }
}
