/**
 * The engine's API as plain, structured-clone-safe data: what the editor (through the worker), the
 * CLI (in process) and later a Language Server adapter send and receive. No model object ever
 * crosses this boundary. Positions are zero-based (VS Code and LSP agree); paths are absolute and
 * `/`-separated.
 *
 * LSP mapping: `diagnostics` notifications = textDocument/publishDiagnostics, `definition`,
 * `references`, `hover`, `codeActions`, `documentLinks` = the requests of the same name.
 */
import type { Result } from '../core/result';
import type { Position, Range } from '../core/yaml/lines';
import type { LiveObjectStatus, LiveState } from '../core/status/conditions';
import type { DriftReport } from '../core/drift/types';
import type { RenderResult, HelmRenderResult, RenderedObject } from '../render/types';
import type { TreeJson } from '../core/tree/treeData';
import type { IconSpec } from '../core/tree/viewModel';
import type { DependencyGraph, GraphLive } from '../core/graph/types';
import type { ClusterCrds } from '../core/schema/clusterCrds';
import type { ChangesReport } from '../core/changes/types';

export type { Position, Range, LiveObjectStatus, LiveState, DriftReport, RenderResult, HelmRenderResult, RenderedObject, TreeJson, DependencyGraph, GraphLive, ClusterCrds, ChangesReport };

export interface Location {
  file: string;
  range: Range;
}

export type Severity = 'error' | 'warning' | 'info';

export interface EngineDiagnostic extends Location {
  /** Rule id (`depends-on-not-found`, …): the diagnostic's code. */
  rule: string;
  severity: Severity;
  message: string;
  related: (Location & { message: string })[];
}

/** A finding the repository silenced, with how and why (SARIF lists it as suppressed). */
export interface SuppressedEngineDiagnostic extends EngineDiagnostic {
  suppression: { kind: 'inSource' | 'external'; justification: string };
}

/** The diagnostics of one file; an empty list clears it (LSP publishDiagnostics). */
export interface FileDiagnostics {
  file: string;
  diagnostics: EngineDiagnostic[];
}

/** A Flux object as the cluster names it: the namespace is always set for namespaced kinds. */
export interface ObjectRef {
  kind: string;
  namespace: string;
  name: string;
}

/** An object applied in a cluster of a workspace folder. */
export interface TargetRef extends ObjectRef {
  /** Cluster (root Kustomization) name in the workspace model. */
  cluster: string;
  /** Workspace folder holding it. */
  root: string;
}

export type { IconSpec };

/** One node of the Flux tree, ready to show. `id` is stable across rebuilds and is the handle for children. */
export interface TreeItemData {
  id: string;
  label: string;
  description?: string;
  /** Markdown, user-supplied parts escaped. */
  tooltip?: string;
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  icon: IconSpec;
  /** Where clicking it goes. */
  location?: Location;
  /** The object commands (reconcile, drift) act on, when the node is one. */
  target?: ObjectRef & { cluster?: string };
}

export interface NavTarget extends Location {
  /** Set when the reference names a folder Flux generates a kustomization for. */
  folder?: string;
}

export interface DocumentLink {
  range: Range;
  target: NavTarget;
  tooltip: string;
}

export interface Reference extends Location {
  why: string;
}

export interface CompletionData {
  label: string;
  kind: 'field' | 'value';
  detail: string;
  /** Plain text (the schema's description). */
  documentation: string;
  insertText: string;
  required: boolean;
  /** A VS Code snippet writing out the fields this one requires; used in place of insertText. */
  snippet?: string;
}

export interface HoverData {
  markdown: string;
  range: Range;
}

export interface TextEdit extends Location {
  newText: string;
}

export interface CodeAction {
  title: string;
  edits: TextEdit[];
  preferred: boolean;
  /** The diagnostic it fixes (same rule and start position as one the engine published); none for an action on the text itself (a `$schema` comment to remove). */
  diagnostic?: { rule: string; start: Position };
}

/** A Kustomization or HelmRelease written in a file, with the identity Flux gives it. */
export interface FileTarget extends ObjectRef {
  /** Line of the document start (where a CodeLens goes). */
  line: number;
  /** Applied by some cluster of the workspace. */
  applied: boolean;
}

/** What a drift run needs from the workspace, besides the render. */
export interface DriftSubject {
  target: TargetRef;
  /** The object as written in the workspace (plain JSON). */
  body: Record<string, any>;
  /** HelmRelease only: helm-controller's release name and namespaces. */
  releaseName?: string;
  targetNamespace?: string;
  storageNamespace?: string;
}

export interface LiveValueMark {
  file: string;
  line: number;
  text: string;
  subject: string;
}

/** The cluster as the status watcher sees it; the engine decorates the tree from it. */
export interface LiveSnapshot {
  connected: boolean;
  statuses: LiveObjectStatus[];
  /** Flux kinds listed at least once (an object of such a kind missing from `statuses` is Absent). */
  syncedKinds: string[];
}

export interface RenderParams {
  target: TargetRef;
  /** False in untrusted workspaces: no network request (builds never make one; only a chart fetch would). */
  allowNetwork: boolean;
  /** Only the chart cache is used for HelmRepository/OCIRepository charts. */
  offline?: boolean;
  revealSecretValues?: boolean;
  /** Time limit of one build or chart fetch (CLI `--timeout`). */
  timeoutMs?: number;
  /** kustomize-controller's StrictPostBuildSubstitutions; default: as the repository runs it (on from Flux 2.9 unless a file turns the gate off). */
  strictSubstitution?: boolean;
  /** A HelmRelease's `.Capabilities.KubeVersion`: the connected cluster's (drift); default the version the repository pins, else the documented default. */
  kubeVersion?: string;
  /** Environment for chart fetches (where registry logins and the chart cache are); default the engine's process environment. The builds see none. */
  env?: Record<string, string | undefined>;
}

/** A HelmRelease's render as the model holds it (core/helm/install.ts), in plain JSON. */
export interface HelmReleaseInstall {
  target: TargetRef;
  install:
    | {
        ok: true;
        /** `name@version` of the chart, and where it was found. */
        chart: string;
        /** The release manifest (hooks left out). */
        objects: Record<string, unknown>[];
        /** The chart's `crds/` folder, and the policies helm-controller applies it by (install, upgrade). */
        crds: Record<string, unknown>[];
        crdPolicy: { install: string; upgrade: string };
      }
    | { ok: false; atHand: boolean; message: string };
}

/**
 * `changes` fetches the charts of HelmReleases not at hand into the chart cache first (a trusted
 * workspace, not offline), with this environment (registry logins, where the chart cache is).
 */
export interface FetchCharts {
  env?: Record<string, string | undefined>;
}

/** What an engine reports between requests. */
export interface EngineStatus {
  /** True until the first index of every folder finished. */
  indexing: boolean;
  /** Files read so far (grows while indexing). */
  files: number;
  /** Workspace folders that hold Flux objects. */
  folders: { root: string; clusters: string[]; objects: number }[];
  /** Bumped on every model change. */
  version: number;
  /** Folders the engine never reads (chart templates, `.sourceignore`d, VCS data): events under them can be dropped. */
  ignoredFolders: string[];
}

/** What the editor points at, as dependency graph nodes of one workspace folder. */
export interface GraphSelection {
  /** The workspace folder whose graph holds the nodes. */
  root: string;
  /** Set for a cluster tree item: the graph to show. */
  cluster?: string;
  /** Node ids (any cluster): the object's own node, or the Kustomizations applying it. */
  nodes: string[];
}

/** What `changes` can compare a folder with, read from its repository's `.git` (no git binary). */
export interface ChangeBases {
  /** The base used when none is given (the merge-base of HEAD with the upstream, else main/master), or why there is none. */
  default: { name: string; sha: string } | { error: string };
  /** The checked-out branch's upstream (`origin/main`), when it has one. */
  upstream?: string;
  /** The checked-out branch; undefined when HEAD is detached. */
  branch?: string;
  /** The commit HEAD names, when it names one. */
  head?: string;
  /** Local branches with the commit each names. */
  branches: { name: string; sha: string }[];
}

/** `changes` of a folder against a base. */
export interface ChangesAnswer {
  report: ChangesReport;
  /** How the base was named: `merge-base of HEAD and origin/main`, or the ref as given. */
  baseName: string;
  /** Kustomization builds the base rendered itself, of `builds`: the others' inputs are as in the working tree. */
  rendered: number;
  builds: number;
  /** HelmRelease renders the base made itself, of `helmReleases` rendered there (the others' inputs are as in the working tree). */
  helmRendered: number;
  helmReleases: number;
  /** The base side is as an earlier comparison with this base left it in the build cache (nothing read or built again). */
  kept?: boolean;
}

/** A YAML problem of a file, for the CLI's stderr (1-based line, column when known). */
export interface ParseProblem {
  file: string;
  line: number;
  column?: number;
  message: string;
}

/** Requests: method → [params, result]. */
export interface EngineMethods {
  status: [Record<string, never>, EngineStatus];
  /** Every diagnostic of a folder (or all folders), and the rules that failed with an internal error. */
  check: [{ root?: string }, { diagnostics: EngineDiagnostic[]; failures: { rules: string; message: string }[]; suppressed: SuppressedEngineDiagnostic[] }];
  /** `gitops-preview tree` output of a folder. */
  treeJson: [{ root: string }, TreeJson];
  treeText: [{ root: string }, string];
  parseProblems: [{ root: string }, ParseProblem[]];
  /** Children of a tree node, or the roots (one per folder holding Flux objects when there are several). */
  treeChildren: [{ id?: string }, TreeItemData[]];
  /** Tree nodes from a root down to the object at the position (first path), for reveal. */
  treePath: [{ file: string; position: Position; text?: string }, TreeItemData[]];
  /** The written object at the position: its identity, and every cluster applying it. */
  objectAt: [{ file: string; position: Position; text?: string }, { ref: ObjectRef; applied: TargetRef[] } | undefined];
  definition: [{ file: string; position: Position; text?: string }, NavTarget[]];
  references: [{ file: string; position: Position; includeDeclaration: boolean; text?: string }, Reference[]];
  documentLinks: [{ file: string; text?: string }, DocumentLink[]];
  hover: [{ file: string; position: Position; text?: string }, HoverData | undefined];
  /** Fields (or enum values) the schema of the document at the position allows there. */
  completion: [{ file: string; position: Position; text?: string }, CompletionData[]];
  codeActions: [{ file: string; range: Range; text?: string }, CodeAction[]];
  fileTargets: [{ file: string }, FileTarget[]];
  /** Kustomizations and HelmReleases written in the workspace (drift candidates), optionally one object's copies. */
  targets: [{ kind?: string; namespace?: string; name?: string; cluster?: string; root?: string; includeInferred?: boolean }, TargetRef[]];
  driftSubject: [{ target: TargetRef }, DriftSubject | undefined];
  render: [RenderParams, Result<RenderResult | HelmRenderResult, { kind: string; message: string }>];
  /**
   * What each HelmRelease of a folder installs, its pending renders done first: from charts at hand
   * (the workspace's, the chart cache's); none is fetched.
   */
  helmInstalls: [{ root: string }, HelmReleaseInstall[]];
  /** What the folder's model knows (CRDs in the workspace, built-in kinds): the fallback when discovery fails. */
  isNamespaced: [{ root: string; types: { apiVersion: string; kind: string }[] }, boolean[]];
  liveValueMarks: [{ reports: DriftReport[] }, LiveValueMark[]];
  /** The dependency graph of a folder (the `graph --format json` contract); sources included unless `sources: false`. */
  graph: [{ root: string; cluster?: string; sources?: boolean }, DependencyGraph];
  /** Live states of a folder's graph nodes from the latest live snapshot; empty when not connected. */
  graphLive: [{ root: string }, GraphLive];
  /** The graph nodes of the object at a position, or of a tree item (a cluster item names its cluster). */
  graphNodesAt: [{ file: string; position: Position; text?: string } | { treeItem: string }, GraphSelection | undefined];
  /** Flux objects the cluster has and no workspace folder defines. */
  clusterOnly: [Record<string, never>, LiveObjectStatus[]];
  /** The bases `changes` offers for a folder: the default, the upstream, local branches. */
  changeBases: [{ root: string }, Result<ChangeBases, { message: string }>];
  /**
   * What every cluster of a folder applies differently from `base` (a ref or commit; default:
   * ChangeBases.default) to the working tree as the engine has it, unsaved buffers included.
   */
  changes: [{ root: string; base?: string; fetchCharts?: FetchCharts }, Result<ChangesAnswer, { message: string }>];
}

export type EngineMethod = keyof EngineMethods;
export type ParamsOf<M extends EngineMethod> = EngineMethods[M][0];
export type ResultOf<M extends EngineMethod> = EngineMethods[M][1];

/** One-way messages to the engine (no answer): the editor's state. */
export type EngineInput =
  | { type: 'open'; roots: string[]; settings?: EngineSettings }
  | { type: 'filesChanged'; paths: string[] }
  | { type: 'buffer'; file: string; text: string | undefined }
  | { type: 'reload' }
  | { type: 'live'; snapshot: LiveSnapshot | undefined }
  /** The CRDs of the connected context, or the last known ones (kept after the connection ends); undefined: none known. */
  | { type: 'clusterCrds'; crds: ClusterCrds | undefined }
  | { type: 'cancel'; id: number };

/** Notifications from the engine. */
export type EngineEvent =
  | { type: 'status'; status: EngineStatus }
  | { type: 'diagnostics'; files: FileDiagnostics[] }
  /**
   * `treeRoots`: the Flux view's top level for this version, sent with it so the view shows it
   * without asking an engine that is busy with the builds and checks that follow a change.
   */
  | { type: 'changed'; version: number; treeRoots?: TreeItemData[] }
  | { type: 'log'; message: string }
  | { type: 'timings'; timings: UpdateTimings };

/**
 * Where the time of one update went, from the first input it covers until its diagnostics were
 * sent (sent after each such publication; the output channel and `npm run bench -- build` show it).
 */
export interface UpdateTimings {
  /** Applying the inputs (re-parsing the changed files). */
  inputMs: number;
  /** Each Kustomization rendered, with where its time went. */
  renders: RenderTiming[];
  /** Rebuilding the model (after the inputs, and after each round of renders). */
  modelMs: number;
  /** Running the checks and comparing with what was published. */
  checksMs: number;
  /** From the first input until the diagnostics were handed to the transport. */
  totalMs: number;
}

export interface RenderTiming {
  /** `namespace/name` of the Kustomization. */
  name: string;
  /**
   * Why it was rendered: no build under its key, or a build whose reads changed; `in-part` when one
   * resource file of it changed and only that file's way through the build was redone.
   */
  reason: 'new-key' | 'reads-changed' | 'in-part';
  /** A build in part that could not stand for the whole build (the whole build ran after it): why. */
  refused?: string;
  /** Started from the last model before the edit's model was rebuilt (Refiner.startEarly); its times run from then. */
  early?: boolean;
  prepareMs: number;
  kustomizeMs: number;
  postBuildMs: number;
}

/** The wire format between the extension host and the worker. */
export type ToEngine = EngineInput | { type: 'request'; id: number; method: EngineMethod; params: unknown };
export type FromEngine = EngineEvent | { type: 'response'; id: number; result?: unknown; error?: string };

/** Editor settings the model reads (the CLI reads only the repository's `.gitops-preview.yaml`). */
export interface EngineSettings {
  /** `gitopsPreview.sourceRoots`: `Kind/namespace/name` → workspace folder holding that source's artifact. */
  sourceRoots?: Record<string, string>;
  /**
   * Where the engine may keep data between sessions, outside every workspace folder (the
   * workspace's storage; the CLI's `~/.cache/gitops-preview`): builds persist under
   * `builds/<hash of the folder>`, all folders together capped (buildCacheCap.ts). Unset: nothing
   * is written.
   */
  storageDir?: string;
  /**
   * The Red Hat YAML extension is enabled: documents under a `yaml-language-server` `$schema`
   * comment are judged, completed and hovered by it, so schema findings there give way to one
   * note (core/checks/redHatYaml.ts) and schema completion and hover stay out of its way.
   */
  redHatYaml?: boolean;
  /**
   * Its `yaml.schemas` setting (schema → file globs), when it is enabled: files it gives a schema
   * are its to judge, complete and hover, as under a `$schema` comment.
   */
  redHatYamlSchemas?: Record<string, string[] | string>;
  /** The CLI's `build ks NAME`: a model for the Kustomizations of that name alone (BuildOptions.focus). */
  focus?: { kustomization: string };
}
