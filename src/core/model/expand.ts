import type { PathSegment, YamlDoc } from '../yaml/document';
import type { Workspace } from '../workspace/workspace';
import { isManifestFileName } from '../workspace/scanned';
import type { SourceFile } from '../yaml/document';
import { asArray, asRecord, asString, kustomizeConfigOf, type KubeObject } from './objects';
import { namespaceToTargetNamespace } from './replacements';
import { joinVirtual, kustomizationFileInView, type SourceView } from './view';

/** An object a folder produces, with what kustomize's transformers made of its namespace and name. */
export interface ExpandedObject {
  readonly object: KubeObject;
  /** Namespace after kustomize `namespace:` transformers; undefined when none applied. */
  readonly namespace: string | undefined;
  readonly prefix: string;
  readonly suffix: string;
  /** kustomize's namespace transformer renames Namespace objects to the namespace it sets. */
  readonly renamedTo?: string;
  /** A Flux Kustomization's `spec.targetNamespace` as kustomize `replacements` set it (see replacements.ts). */
  readonly targetNamespace?: string;
}

export type ExpandProblemCode = 'path-not-found' | 'not-a-kustomization' | 'kustomize-invalid' | 'analysis-limit' | 'apply-cycle' | 'build-failed';

/**
 * kustomization files followed through `resources`/`components` at most this deep: real overlays
 * nest a handful of levels, a repository nesting a thousand would exhaust the call stack.
 */
export const MAX_KUSTOMIZE_DEPTH = 100;
/** Objects one expansion may hold; past it (an exponential fan-out of overlays) the rest is dropped. */
export const MAX_EXPANDED_OBJECTS = 200_000;

/** A mistake in a kustomization file, located at the offending node. */
export interface ExpandProblem {
  readonly code: ExpandProblemCode;
  readonly message: string;
  readonly doc: YamlDoc;
  readonly path: PathSegment[];
  /** Other locations involved (the Kustomization an apply-cycle closes on). */
  readonly related?: readonly { doc: YamlDoc; path: PathSegment[]; message: string }[];
}

export interface Expansion {
  readonly objects: ExpandedObject[];
  readonly problems: ExpandProblem[];
  /** Remote bases (URLs) kustomize would fetch; not followed offline. */
  readonly remote: string[];
  /** Every workspace file that contributed (manifests and kustomization files). */
  readonly files: Set<string>;
}

const EMPTY: Expansion = { objects: [], problems: [], remote: [], files: new Set() };

/**
 * `user@host:path`: an `@` after the first character and a `:` at least two after it, before any
 * `/` or blank. By index, as `/^[^/\s]+@[^/\s]+:/` retries the second run from every `@`.
 */
function isScpLike(entry: string): boolean {
  const blank = entry.search(/[/\s]/);
  const head = blank === -1 ? entry : entry.slice(0, blank);
  const at = head.indexOf('@', 1);
  return at !== -1 && head.indexOf(':', at + 2) !== -1;
}

/**
 * Entries kustomize loads from elsewhere (git clone or HTTP): URLs, its `git::`/`gh:` prefixes,
 * scp-like `user@host:repo`, well-known hosts, Azure's `_git/`, and `?ref=`/`?version=` queries.
 */
export function isRemoteResource(entry: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ||
    /^(git::|gh:|git@|github\.com[:/]|gitlab\.com\/|bitbucket\.org\/)/i.test(entry) ||
    isScpLike(entry) ||
    entry.includes('_git/') ||
    /\?(ref|version)=/.test(entry)
  );
}

/**
 * Follows kustomization files and Flux's generator rule over a source view. Results are memoised
 * per view and folder, so a folder shared by many Kustomizations is read once per model build.
 */
export class Expander {
  private readonly memo = new Map<string, Expansion>();
  private readonly inProgress = new Set<string>();
  /** Expansions computed (not answered from the memo): the work a build did, for tests and benchmarks. */
  computed = 0;
  /** file → memo keys whose expansion read it, so one edit drops only what depends on that file. */
  private readonly dependents = new Map<string, Set<string>>();

  constructor(
    private readonly ws: Workspace,
    private readonly isNamespaced: (obj: KubeObject) => boolean,
    private readonly objectsOf: (file: SourceFile) => KubeObject[],
  ) {}

  /** Forget every expansion that read `path`. */
  invalidate(path: string): void {
    const keys = this.dependents.get(path);
    if (!keys) return;
    for (const key of keys) {
      const dropped = this.memo.get(key);
      if (dropped) this.live.delete(dropped);
      this.memo.delete(key);
    }
    this.dependents.delete(path);
  }

  /** Whether an expansion handed out earlier still describes the files (no file it read has changed). */
  isLive(expansion: Expansion): boolean {
    return this.live.has(expansion);
  }

  private readonly live = new WeakSet<Expansion>();

  private remember(key: string, result: Expansion): void {
    this.live.add(result);
    this.memo.set(key, result);
    for (const f of result.files) {
      let keys = this.dependents.get(f);
      if (!keys) this.dependents.set(f, (keys = new Set()));
      keys.add(key);
    }
  }

  /** What Flux applies for `spec.path` = vdir (plus `spec.components`, relative to it). */
  expandFluxPath(view: SourceView, vdir: string, components: readonly string[] = []): Expansion {
    const key = `${view.key}|${vdir}|${components.join(',')}`;
    const cached = this.memo.get(key);
    if (cached) return cached;
    const kfile = kustomizationFileInView(view, vdir);
    let result: Expansion;
    if (kfile) result = this.expandKustomization(view, vdir, kfile, components);
    else {
      result = this.generate(view, vdir);
      if (components.length) result = merge([result, ...components.map((c) => this.expandComponent(view, vdir, c))]);
    }
    this.remember(key, result);
    return result;
  }

  private expandComponent(view: SourceView, vdir: string, rel: string): Expansion {
    const vp = joinVirtual(vdir, rel);
    if (vp === undefined) return EMPTY;
    const kfile = kustomizationFileInView(view, vp);
    return kfile ? this.expandKustomization(view, vp, kfile, []) : EMPTY;
  }

  /** Flux's generated kustomization: every manifest below the folder; sub-folders with their own kustomization count as one unit. */
  private generate(view: SourceView, vdir: string): Expansion {
    this.computed++;
    const parts: Expansion[] = [];
    const files = new Set<string>();
    const objects: ExpandedObject[] = [];
    const walk = (dir: string) => {
      const listing = view.listDir(dir);
      if (!listing) return;
      for (const [name, real] of [...listing.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (!name.endsWith('.yaml') && !name.endsWith('.yml')) continue;
        const file = this.ws.files.get(real);
        if (!file) continue;
        files.add(real);
        for (const object of this.objectsOf(file)) objects.push({ object, namespace: undefined, prefix: '', suffix: '' });
      }
      for (const sub of [...listing.dirs].sort()) {
        const subdir = dir ? `${dir}/${sub}` : sub;
        const kfile = kustomizationFileInView(view, subdir);
        if (kfile) parts.push(this.expandKustomization(view, subdir, kfile, []));
        else walk(subdir);
      }
    };
    walk(vdir);
    return merge([{ objects, problems: [], remote: [], files }, ...parts]);
  }

  private expandKustomization(view: SourceView, vdir: string, kfile: string, extraComponents: readonly string[]): Expansion {
    const key = `k|${view.key}|${vdir}|${extraComponents.join(',')}`;
    const cached = this.memo.get(key);
    if (cached) return cached;
    if (this.inProgress.has(key)) return EMPTY; // a resource cycle; kustomize reports it, we just stop
    this.inProgress.add(key);
    try {
      const result = this.expandKustomizationUncached(view, vdir, kfile, extraComponents);
      this.remember(key, result);
      return result;
    } finally {
      this.inProgress.delete(key);
    }
  }

  private expandKustomizationUncached(view: SourceView, vdir: string, kfile: string, extraComponents: readonly string[]): Expansion {
    this.computed++;
    const file = this.ws.files.get(kfile);
    const files = new Set<string>([kfile]);
    const doc = file && kustomizeConfigOf(file);
    const config = doc ? asRecord(doc.value) : undefined;
    if (!file || !doc || !config) return { objects: [], problems: [], remote: [], files };
    const problems: ExpandProblem[] = [];
    const remote: string[] = [];
    const parts: Expansion[] = [];
    const objects: ExpandedObject[] = [];
    const listed = new Set<string>();

    const follow = (field: 'resources' | 'components', entry: unknown, index: number, asComponent: boolean) => {
      const rel = asString(entry);
      if (rel === undefined) return;
      if (isRemoteResource(rel)) {
        remote.push(rel);
        return;
      }
      const path: PathSegment[] = [field, index];
      const vp = joinVirtual(vdir, rel);
      if (vp === undefined) {
        problems.push({ code: 'path-not-found', message: `'${rel}' points outside the source artifact; kustomize cannot load it.`, doc, path });
        return;
      }
      // Listing one file or folder twice would double everything below it, level after level.
      if (listed.has(vp)) {
        problems.push({
          code: 'kustomize-invalid',
          message: `'${rel}' is listed twice in this kustomization; kustomize fails with "may not add resource with an already registered id".`,
          doc,
          path,
        });
        return;
      }
      listed.add(vp);
      const real = view.file(vp);
      if (real && !asComponent) {
        files.add(real);
        const f = this.ws.files.get(real);
        if (f) for (const object of this.objectsOf(f)) objects.push({ object, namespace: undefined, prefix: '', suffix: '' });
        else if (!isManifestFileName(real)) {
          /* a non-YAML resource (JSON, say): kustomize reads it, we do not model it */
        }
        return;
      }
      if (view.listDir(vp)) {
        const sub = kustomizationFileInView(view, vp);
        if (!sub) {
          problems.push({
            code: 'not-a-kustomization',
            message: `'${rel}' is a folder without a kustomization.yaml; kustomize fails with "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization'". Add one, or list its files.`,
            doc,
            path,
          });
          return;
        }
        if (this.inProgress.size >= MAX_KUSTOMIZE_DEPTH) {
          problems.push({
            code: 'analysis-limit',
            message: `kustomization files nest more than ${MAX_KUSTOMIZE_DEPTH} levels deep here; '${rel}' and what it includes are not analysed.`,
            doc,
            path,
          });
          return;
        }
        parts.push(this.expandKustomization(view, vp, sub, []));
        return;
      }
      problems.push({
        code: 'path-not-found',
        message: `${field === 'resources' ? 'Resource' : 'Component'} '${rel}' does not exist; kustomize fails the build with "no such file or directory".`,
        doc,
        path,
      });
    };

    asArray(config.resources).forEach((e, i) => follow('resources', e, i, false));
    asArray(config.bases).forEach((e, i) => follow('resources', e, i, false));
    asArray(config.components).forEach((e, i) => follow('components', e, i, true));
    for (const rel of extraComponents) parts.push(this.expandComponent(view, vdir, rel));

    const inner = merge([{ objects, problems: [], remote: [], files: new Set() }, ...parts]);
    if (inner.objects.length > MAX_EXPANDED_OBJECTS) {
      problems.push({
        code: 'analysis-limit',
        message: `This kustomization expands to ${inner.objects.length.toLocaleString('en-US')} objects; only the first ${MAX_EXPANDED_OBJECTS.toLocaleString('en-US')} are analysed.`,
        doc,
        path: [],
      });
      inner.objects.length = MAX_EXPANDED_OBJECTS;
    }
    const namespace = asString(config.namespace) || undefined;
    const prefix = asString(config.namePrefix) ?? '';
    const suffix = asString(config.nameSuffix) ?? '';
    const transformed =
      namespace || prefix || suffix
        ? inner.objects.map((o) => {
            const namespaced = this.isNamespaced(o.object);
            const renamed = o.object.kind !== 'Namespace' && o.object.kind !== 'CustomResourceDefinition';
            return {
              object: o.object,
              namespace: namespace && namespaced ? namespace : o.namespace,
              prefix: renamed ? prefix + o.prefix : o.prefix,
              suffix: renamed ? o.suffix + suffix : o.suffix,
              renamedTo: namespace && o.object.kind === 'Namespace' ? namespace : o.renamedTo,
            };
          })
        : inner.objects;
    for (const f of inner.files) files.add(f);
    const replaced = this.replaceTargetNamespace(view, vdir, config, transformed, files);
    return {
      objects: replaced,
      problems: [...problems, ...inner.problems],
      remote: [...remote, ...inner.remote],
      files,
    };
  }

  private replaceTargetNamespace(view: SourceView, vdir: string, config: Record<string, any>, objects: ExpandedObject[], files: Set<string>): ExpandedObject[] {
    if (!config.replacements) return objects;
    const replacement = namespaceToTargetNamespace(this.ws, view, vdir, config);
    if (!replacement) return objects;
    for (const f of replacement.files) files.add(f);
    const namespaces = objects.filter((o) => o.object.kind === 'Namespace');
    if (namespaces.length !== 1) return objects;
    const value = namespaces[0].renamedTo ?? namespaces[0].object.name;
    return objects.map((o) => (o.object.fluxKind === 'Kustomization' ? { ...o, targetNamespace: value } : o));
  }
}

function merge(parts: Expansion[]): Expansion {
  if (parts.length === 1) return parts[0];
  const files = new Set<string>();
  for (const p of parts) for (const f of p.files) files.add(f);
  return {
    objects: capCopies(parts.flatMap((p) => p.objects)),
    problems: parts.flatMap((p) => p.problems),
    remote: parts.flatMap((p) => p.remote),
    files,
  };
}

/**
 * Two branches including one base untransformed hand over the same entries: kustomize rejects that
 * (`duplicate-object` reports it), and a chain of such diamonds would double the list at every
 * level. Two copies are enough to report it, so no entry is kept more often.
 */
function capCopies(objects: ExpandedObject[]): ExpandedObject[] {
  const seen = new Map<ExpandedObject, number>();
  return objects.filter((o) => {
    const n = (seen.get(o) ?? 0) + 1;
    seen.set(o, n);
    return n <= 2;
  });
}
