import type { Range } from '../yaml/lines';
import type { PathSegment } from '../yaml/document';

/** Stable rule ids: the CLI, SARIF output and quick fixes key on them. */
export const RULES = {
  'yaml-syntax': 'error',
  'depends-on-not-found': 'error',
  'depends-on-kind': 'error',
  'depends-on-cycle': 'error',
  'depends-on-descendant': 'error',
  'crd-order': 'error',
  'crd-order-no-wait': 'warning',
  'api-version-unserved': 'error',
  'source-not-found': 'warning',
  'path-not-found': 'error',
  'build-failed': 'error',
  'substitution-undefined': 'warning',
  'substitution-invalid': 'error',
  'duplicate-object': 'error',
  'file-unreadable': 'warning',
  'file-too-large': 'warning',
  'apply-cycle': 'error',
  'analysis-limit': 'warning',
  'config-invalid': 'warning',
  'schema-invalid': 'error',
  'schema-unknown-field': 'warning',
  'schema-comment': 'info',
  'helm-values-invalid': 'error',
  'helm-render-failed': 'error',
  'helm-values-unread': 'warning',
} as const;

export type RuleId = keyof typeof RULES;
export type Severity = 'error' | 'warning' | 'info';

export const RULE_DESCRIPTIONS: Record<RuleId, string> = {
  'yaml-syntax': 'A YAML document does not parse.',
  'depends-on-not-found': 'A dependsOn entry names no object of the same kind in the same cluster.',
  'depends-on-kind': 'A dependsOn entry names an object of the other kind (Kustomization vs HelmRelease).',
  'depends-on-cycle': 'Objects depend on each other in a cycle; none of them ever becomes ready.',
  'depends-on-descendant': 'A Kustomization depends on a Kustomization it applies itself; it never becomes ready.',
  'crd-order': 'A custom resource is applied before anything guarantees its CRD exists.',
  'crd-order-no-wait': 'A dependency installs CRDs through a HelmRelease but does not wait for it.',
  'api-version-unserved': 'An object uses an API version its API server does not serve: one current Flux dropped, one Kubernetes removed, or one no known CRD of its kind serves.',
  'source-not-found': 'A sourceRef, chart sourceRef or chartRef names nothing in the workspace.',
  'path-not-found': 'spec.path or a kustomization resources entry resolves to nothing.',
  'build-failed': 'kustomize build or post-build substitution of a Kustomization fails, as kustomize-controller would.',
  'substitution-undefined': 'A ${var} without default is not defined by the Kustomization postBuild.',
  'substitution-invalid': 'A ${…} expression Flux variable substitution cannot parse.',
  'duplicate-object': 'Two documents in one cluster define the same object.',
  'file-unreadable': 'A workspace file was not read: not a regular file, a link leaving the workspace or looping, or an I/O error.',
  'file-too-large': 'A file exceeds a read limit (size or number of documents) and was not read, or only in part.',
  'apply-cycle': 'Kustomizations apply each other: a spec.path includes the file of a Kustomization that applies it.',
  'analysis-limit': 'The repository exceeds a bound of the analysis (nesting depth, expanded objects); the part beyond it is not analysed.',
  'config-invalid': 'An entry of the repository\'s .gitops-preview.yaml is not understood and is ignored.',
  'schema-invalid': 'A field has a value the API server rejects (type, enum, pattern, bounds, a required field, a CEL rule), by the schema the cluster serves.',
  'schema-comment': 'Beside the Red Hat YAML extension: a `yaml-language-server` `$schema` comment makes that extension judge the document, so the schema findings of this tool are not shown twice there; removing the comment shows them.',
  'schema-unknown-field': 'A field the schema does not have: it is dropped (by the API server for a custom resource, by kustomize-controller for a built-in kind), so the setting never takes effect; a Role or ClusterRole is sent as written, and server-side apply rejects it.',
  'helm-values-invalid': "A HelmRelease's values break its chart's values.schema.json: helm-controller fails the release and installs nothing.",
  'helm-render-failed': "helm fails to render a HelmRelease's chart (a template error, a refused value, an incompatible kubeVersion): helm-controller fails the release.",
  'helm-values-unread': "A top-level key of a HelmRelease's values that its chart never reads: the setting never takes effect (a typo, most often).",
};

export interface Location {
  /** Absolute path, `/` separated. */
  readonly file: string;
  readonly range: Range;
}

export interface RelatedLocation extends Location {
  readonly message: string;
}

/**
 * What a quick fix needs, recorded by the rule that found the problem; `src/core/fixes` turns it
 * into text edits against the current text.
 */
export type FixHint =
  | { kind: 'replace-scalar'; file: string; docIndex: number; path: PathSegment[]; candidates: { title: string; value: string }[] }
  | { kind: 'set-namespace'; file: string; docIndex: number; path: PathSegment[]; namespace: string; name: string }
  | { kind: 'add-depends-on'; file: string; docIndex: number; name: string; namespace: string | undefined }
  | { kind: 'add-wait'; file: string; docIndex: number; helmRelease: { name: string; namespace: string } }
  | { kind: 'migrate-api-version'; file: string; docIndex: number; kind_: string; from: string; to: string }
  | { kind: 'rename-key'; file: string; docIndex: number; path: PathSegment[]; key: string; candidates: string[] };

export interface Diagnostic extends Location {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly message: string;
  readonly related: RelatedLocation[];
  readonly fix?: FixHint;
  /** When findings of several places were merged into this one (checks/group.ts): each as reported. */
  readonly places?: readonly Diagnostic[];
}
