/**
 * kustomize-controller confines every read of a build to the source artifact (fluxcd/pkg/kustomize
 * builds on a secure filesystem rooted there, with LoadRestrictionsNone so `../base` inside the
 * artifact works). The kustomize binary has no such filesystem: with LoadRestrictionsNone it reads
 * any absolute path. So before it runs, every field of every kustomization the build reaches that
 * names a file is checked here: absolute paths and paths that climb out of the source root are
 * refused, remote entries (kustomize would run git) are refused, helm inflation and non-builtin
 * plugins are refused, and generator/transformer/validator configs (inline, in files, or built from
 * a folder) are checked for the files they read.
 *
 * Pure: reads through a `SourceTree`, so any renderer (the kustomize binary over a staged copy, an
 * in-process one over memory) can run the same check over exactly the tree it builds.
 */
import { QUIET } from '../yaml/document';
import { parseAllDocuments, parseDocument } from 'yaml';
import { ParsedByText } from '../yaml/byText';
import { isRemoteResource } from '../model/expand';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';

/** A source artifact as the build sees it: '/'-separated paths relative to its root ('' = root). */
export interface SourceTree {
  /** Text of a regular file, else undefined (missing, a folder). */
  readFile(vpath: string): string | undefined;
  isDir(vpath: string): boolean;
}

export interface ConfinementProblem {
  /** Source path of the file the entry is written in. */
  file: string;
  /** Where in that file, e.g. `configMapGenerator[0].files[1]` or `generators[0] (inline ConfigMapGenerator).files[0]`. */
  field: string;
  entry: string;
  reason: string;
}

/** Kustomization files as kustomize reads them (merge keys, aliases bounded); read only. */
const kustomizations = new ParsedByText((text): unknown => {
  const doc = parseDocument(text, { ...QUIET, merge: true });
  if (doc.errors.length) throw doc.errors[0];
  return doc.toJS({ maxAliasCount: 1000 });
});

/** Where a path written in a folder of the source lands, or why kustomize-controller would refuse it. */
export function resolveInSource(dir: string, entry: string): { vpath: string } | { reason: string } {
  if (entry.includes('\0')) return { reason: 'contains a NUL character' };
  if (/^[/\\]/.test(entry) || /^[A-Za-z]:/.test(entry) || /^file:/i.test(entry)) {
    return { reason: 'is an absolute path; kustomize-controller reads only inside the source artifact' };
  }
  const out = dir ? dir.split('/') : [];
  // Backslashes count as separators too: kustomize on Windows treats them so.
  for (const part of entry.split(/[/\\]/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return { reason: 'climbs out of the source artifact; kustomize-controller reads only inside it' };
      out.pop();
    } else out.push(part);
  }
  return { vpath: out.join('/') };
}

/**
 * Go's encoding/json (which kustomize decodes kustomizations and plugin configs with) matches
 * field names case-insensitively, with Unicode simple folding: `Resources`, `RESOURCES` and
 * `reſources` all fill `resources`. Every spelling is checked.
 */
function fold(key: string): string {
  return key.toUpperCase().toLowerCase();
}

function values(obj: Record<string, unknown>, field: string): unknown[] {
  const out: unknown[] = [];
  const want = fold(field);
  for (const [k, v] of Object.entries(obj)) if (fold(k) === want) out.push(v);
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Entries of a list field; a lone string counts as one entry (kustomize fails on it, but we check it anyway). */
function entries(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return v === undefined || v === null ? [] : [v];
}

/** Fields of a kustomization that name files, as (folded) field → how its entries are read. */
const LIST_FILE_FIELDS = ['crds', 'configurations', 'patchesStrategicMerge'];
const OBJECT_PATH_FIELDS = ['patches', 'patchesJson6902', 'replacements'];
const GENERATOR_ARG_FIELDS = ['configMapGenerator', 'secretGenerator'];
const PLUGIN_FIELDS = ['generators', 'transformers', 'validators'];
const HELM_FIELDS = ['helmCharts', 'helmGlobals', 'helmChartInflationGenerator'];

/** kustomize's builtin plugins (apiVersion `builtin`), and the fields of each that name files. */
const BUILTIN_PLUGINS: Record<string, { lists: string[]; strings: string[]; objectPaths: string[] }> = {
  AnnotationsTransformer: { lists: [], strings: [], objectPaths: [] },
  ConfigMapGenerator: { lists: ['files', 'envs'], strings: ['env'], objectPaths: [] },
  SecretGenerator: { lists: ['files', 'envs'], strings: ['env'], objectPaths: [] },
  HashTransformer: { lists: [], strings: [], objectPaths: [] },
  IAMPolicyGenerator: { lists: [], strings: [], objectPaths: [] },
  ImageTagTransformer: { lists: [], strings: [], objectPaths: [] },
  LabelTransformer: { lists: [], strings: [], objectPaths: [] },
  NamespaceTransformer: { lists: [], strings: [], objectPaths: [] },
  PatchJson6902Transformer: { lists: [], strings: ['path'], objectPaths: [] },
  PatchStrategicMergeTransformer: { lists: ['paths'], strings: [], objectPaths: [] },
  PatchTransformer: { lists: [], strings: ['path'], objectPaths: [] },
  PrefixSuffixTransformer: { lists: [], strings: [], objectPaths: [] },
  PrefixTransformer: { lists: [], strings: [], objectPaths: [] },
  SuffixTransformer: { lists: [], strings: [], objectPaths: [] },
  ReplacementTransformer: { lists: [], strings: [], objectPaths: ['replacements'] },
  ReplicaCountTransformer: { lists: [], strings: [], objectPaths: [] },
  SortOrderTransformer: { lists: [], strings: [], objectPaths: [] },
  ValueAddTransformer: { lists: [], strings: [], objectPaths: [] },
};

/** Path part of a generator source (`key=path` or `path`). */
function generatorSourcePaths(entry: string): string[] {
  const eq = entry.indexOf('=');
  return eq === -1 ? [entry] : [entry, entry.slice(eq + 1)];
}

function kustomizationFile(tree: SourceTree, dir: string): string | undefined {
  for (const name of KUSTOMIZATION_FILE_NAMES) {
    const vp = dir ? `${dir}/${name}` : name;
    if (tree.readFile(vp) !== undefined) return vp;
  }
  return undefined;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}

/**
 * Problems that make the kustomize build at `vdir` of `tree` read outside the tree, fetch remote
 * content, or run something. Empty when the build is confined.
 */
export function kustomizeConfinement(tree: SourceTree, vdir: string): ConfinementProblem[] {
  const out: ConfinementProblem[] = [];
  const visited = new Set<string>();

  const problem = (file: string, field: string, entry: string, reason: string) => out.push({ file, field, entry, reason });

  /** Checks a path entry; returns where it lands when it is confined. */
  const confined = (file: string, dir: string, field: string, entry: unknown): string | undefined => {
    if (typeof entry !== 'string') {
      if (entry !== undefined && entry !== null) problem(file, field, JSON.stringify(entry) ?? String(entry), 'must be a string');
      return undefined;
    }
    const r = resolveInSource(dir, entry);
    if ('reason' in r) {
      problem(file, field, entry, r.reason);
      return undefined;
    }
    return r.vpath;
  };

  /** A list entry kustomize may load as a base (local folder or remote). */
  const baseEntry = (file: string, dir: string, field: string, entry: unknown): string | undefined => {
    if (typeof entry === 'string' && isRemoteResource(entry)) {
      problem(file, field, entry, 'is a remote base; kustomize would fetch it (running git), which the preview never does. Vendor it into the repository.');
      return undefined;
    }
    return confined(file, dir, field, entry);
  };

  /** Generator/transformer/validator configs: each document's file-reading fields, resolved from `base`. */
  const checkConfigs = (docs: unknown[], file: string, field: string, base: string) => {
    docs.forEach((doc, i) => {
      if (!isRecord(doc)) return;
      const kind = typeof doc.kind === 'string' ? doc.kind : '';
      const at = `${field}${docs.length > 1 ? `[doc ${i}]` : ''} (${kind || 'no kind'})`;
      if (kind.endsWith('List') && Array.isArray(doc.items)) {
        checkConfigs(doc.items, file, at, base);
        return;
      }
      if (doc.apiVersion !== 'builtin') {
        problem(file, at, String(doc.apiVersion ?? ''), `is not a kustomize builtin plugin (apiVersion: builtin); kustomize-controller runs no external plugins or KRM functions`);
        return;
      }
      if (kind === 'HelmChartInflationGenerator') {
        problem(file, at, kind, 'inflates a Helm chart; kustomize-controller never enables kustomize\'s Helm support, so the build fails in the cluster');
        return;
      }
      const spec = BUILTIN_PLUGINS[kind];
      if (!spec) {
        problem(file, at, kind, 'is not a kustomize builtin plugin kind');
        return;
      }
      for (const f of spec.lists) values(doc, f).forEach((v) => entries(v).forEach((e, j) => {
        if (typeof e === 'string' && f === 'files') generatorSourcePaths(e).forEach((p) => confined(file, base, `${at}.${f}[${j}]`, p));
        else confined(file, base, `${at}.${f}[${j}]`, e);
      }));
      for (const f of spec.strings) values(doc, f).forEach((v) => confined(file, base, `${at}.${f}`, v));
      for (const f of spec.objectPaths) values(doc, f).forEach((v) => entries(v).forEach((e, j) => {
        if (isRecord(e)) values(e, 'path').forEach((p) => confined(file, base, `${at}.${f}[${j}].path`, p));
      }));
    });
  };

  const parseDocs = (file: string, field: string, text: string): unknown[] | undefined => {
    const docs = parseAllDocuments(text, { ...QUIET, merge: true });
    const bad = (Array.isArray(docs) ? docs : [docs]).find((d) => d.errors.length);
    if (!Array.isArray(docs) || bad) {
      problem(file, field, file, `is not valid YAML (${bad ? firstLine(bad.errors[0]) : 'unreadable'}), so the files it names cannot be checked`);
      return undefined;
    }
    return docs.map((d) => d.toJS({ maxAliasCount: 1000 }));
  };

  /**
   * One kustomization folder. `pluginBase` is set when the folder was listed in
   * generators/transformers/validators: its resources are plugin configs read from that folder.
   */
  const visit = (dir: string, pluginBase: string | undefined) => {
    const key = `${pluginBase ?? ''}\0${dir}`;
    if (visited.has(key)) return;
    visited.add(key);
    const file = kustomizationFile(tree, dir);
    if (!file) return; // kustomize fails on a folder without one; nothing is read
    let config: Record<string, unknown>;
    try {
      const js = kustomizations.get(tree.readFile(file)!);
      config = isRecord(js) ? js : {};
    } catch (err) {
      problem(file, '', file, `is not valid YAML (${firstLine(err)}), so the files it names cannot be checked`);
      return;
    }

    // A folder listed in generators/transformers/validators may use any field (a namespace, patches):
    // kustomize builds it as any kustomization and runs the configs it yields. Those are checked as
    // written; one rewritten to read elsewhere still reads only the in-memory source artifact, and
    // one rewritten to another plugin meets kustomize's disabled plugin config, as in Flux.
    for (const f of HELM_FIELDS) {
      if (values(config, f).some((v) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0))) {
        problem(file, f, f, 'kustomize-controller never runs kustomize with --enable-helm, so Helm chart inflation fails the build in the cluster; use a HelmRelease');
      }
    }

    for (const f of ['resources', 'bases', 'components']) {
      values(config, f).forEach((v) => entries(v).forEach((e, i) => {
        const vp = baseEntry(file, dir, `${f}[${i}]`, e);
        if (vp === undefined) return;
        if (tree.isDir(vp)) visit(vp, pluginBase);
        else if (pluginBase !== undefined) {
          const text = tree.readFile(vp);
          const docs = text === undefined ? undefined : parseDocs(vp, '', text);
          if (docs) checkConfigs(docs, vp, `plugin config`, pluginBase);
        }
      }));
    }
    for (const f of LIST_FILE_FIELDS) values(config, f).forEach((v) => entries(v).forEach((e, i) => confined(file, dir, `${f}[${i}]`, e)));
    for (const f of OBJECT_PATH_FIELDS) {
      values(config, f).forEach((v) => entries(v).forEach((e, i) => {
        if (isRecord(e)) values(e, 'path').forEach((p) => confined(file, dir, `${f}[${i}].path`, p));
      }));
    }
    for (const f of GENERATOR_ARG_FIELDS) {
      values(config, f).forEach((v) => entries(v).forEach((g, i) => {
        if (!isRecord(g)) return;
        for (const list of ['files', 'envs']) {
          values(g, list).forEach((l) => entries(l).forEach((e, j) => {
            const field = `${f}[${i}].${list}[${j}]`;
            if (typeof e === 'string' && list === 'files') generatorSourcePaths(e).forEach((p) => confined(file, dir, field, p));
            else confined(file, dir, field, e);
          }));
        }
        values(g, 'env').forEach((e) => confined(file, dir, `${f}[${i}].env`, e));
      }));
    }
    values(config, 'openapi').forEach((o) => {
      if (isRecord(o)) values(o, 'path').forEach((p) => confined(file, dir, 'openapi.path', p));
    });

    for (const f of PLUGIN_FIELDS) {
      values(config, f).forEach((v) => entries(v).forEach((e, i) => {
        const field = `${f}[${i}]`;
        // kustomize takes an entry as inline configs when it parses as resources, else as a path:
        // check it both ways, so a difference between the two YAML readers cannot skip a check.
        if (typeof e === 'string') {
          const docs = parseAllDocuments(e, { ...QUIET, merge: true });
          const list = Array.isArray(docs) ? docs : [docs];
          if (list.every((d) => d.errors.length === 0)) checkConfigs(list.map((d) => d.toJS({ maxAliasCount: 1000 })), file, `${field} (inline)`, dir);
          else if (/[\n{}[\]:]/.test(e)) problem(file, field, e.split('\n')[0], 'looks like an inline plugin config but is not valid YAML, so the files it names cannot be checked');
        }
        const vp = baseEntry(file, dir, field, e);
        if (vp === undefined) return;
        if (tree.isDir(vp)) visit(vp, dir);
        else {
          const text = tree.readFile(vp);
          const docs = text === undefined ? undefined : parseDocs(vp, '', text);
          if (docs) checkConfigs(docs, vp, 'plugin config', dir);
        }
      }));
    }
  };

  visit(vdir, undefined);
  return out;
}

/** One line per problem, for a render error. */
export function describeConfinement(problems: readonly ConfinementProblem[], limit = 8): string {
  const lines = problems.slice(0, limit).map((p) => `  ${p.file}${p.field ? `: ${p.field}` : ''} '${p.entry}' ${p.reason}`);
  if (problems.length > limit) lines.push(`  ... and ${problems.length - limit} more`);
  return lines.join('\n');
}
