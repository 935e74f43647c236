/**
 * What a repository's task runner applies before Flux: `kubectl apply|create` steps of its
 * Taskfiles (`Taskfile.yaml` and included task files, which the workspace walk reads as YAML) with
 * `--kustomize`/`-k` folders of the repository or `-f` URLs and files. Their CRD groups exist before
 * any Kustomization runs. A folder written with Task variables (`{{.CLUSTER_DIR}}/bootstrap/crds`)
 * is matched by what follows the variables, in every folder of the repository ending so.
 */
import type { Workspace } from '../workspace/workspace';
import type { RepoModel } from '../model/graph';
import { asArray, asRecord, asString, kustomizeConfigOf, objectsOf } from '../model/objects';
import { isRemoteResource } from '../model/expand';
import { crdGroupsOfUrl } from './crdBundles';

export interface BootstrapStep {
  /** The workspace file the step is written in. */
  readonly file: string;
  /** `kubectl apply --kustomize <path>` and the like, as written. */
  readonly command: string;
  readonly groups: readonly string[];
  /**
   * For a folder written with Task variables: the folders the variables stood for
   * (`kubernetes/hegira` for `{{.CLUSTER_DIR}}/bootstrap/crds`), so its CRDs count for the clusters
   * rooted there; undefined when the step is the same for every cluster.
   */
  readonly scope?: readonly string[];
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

function isTaskFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return /^taskfile(\.dist)?\.ya?ml$/i.test(base) || (path.includes('/.taskfiles/') && /\.ya?ml$/.test(base));
}

/** Every string of a Taskfile document (commands sit under `tasks.*.cmds`, `cmd`, `preconditions`…). */
function strings(v: unknown, out: string[], depth = 0): void {
  if (depth > 20) return;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out, depth + 1);
}

/** The `-k`/`--kustomize` and `-f`/`--filename` targets of each `kubectl apply|create` in a command text. */
export function kubectlTargets(text: string): { kustomize: string[]; files: string[] } {
  const kustomize: string[] = [];
  const files: string[] = [];
  for (const line of text.split('\n')) {
    const at = line.indexOf('kubectl');
    if (at < 0) continue;
    const words = line.slice(at).split(/\s+/).filter(Boolean);
    if (!words.slice(1, 6).some((w) => w === 'apply' || w === 'create')) continue;
    for (let i = 1; i < words.length; i++) {
      const w = words[i];
      if (w === '|' || w === '&&' || w === ';' || w === '||') break;
      const take = (list: string[], value: string | undefined) => {
        if (value && value !== '-') list.push(value.replace(/^["']|["']$/g, ''));
      };
      if (w === '-k' || w === '--kustomize') take(kustomize, words[++i]);
      else if (w.startsWith('--kustomize=')) take(kustomize, w.slice('--kustomize='.length));
      else if (w === '-f' || w === '--filename') take(files, words[++i]);
      else if (w.startsWith('--filename=')) take(files, w.slice('--filename='.length));
    }
  }
  return { kustomize, files };
}

/** Workspace folders a written path may be: literal from the root, or every folder ending in what follows `{{…}}`. */
function foldersFor(ws: Workspace, written: string): { dirs: string[]; suffix?: string } {
  let end = written.length;
  while (end > 0 && written[end - 1] === '/') end--;
  const path = written.slice(0, end);
  const close = path.lastIndexOf('}}');
  if (close < 0) {
    const rel = path.replace(/^\.\//, '');
    return { dirs: rel && !rel.startsWith('/') && !rel.split('/').includes('..') && ws.hasDir(`${ws.root}/${rel}`) ? [`${ws.root}/${rel}`] : [] };
  }
  let suffix = path.slice(close + 2);
  while (suffix.startsWith('/')) suffix = suffix.slice(1);
  if (!suffix || suffix.includes('{{')) return { dirs: [] };
  const out = new Set<string>();
  for (const file of ws.files.keys()) {
    const dir = file.slice(0, file.lastIndexOf('/'));
    if (dir.endsWith(`/${suffix}`)) out.add(dir);
  }
  return { dirs: [...out], suffix };
}

/** CRD groups a kustomize folder of the repository holds: CRD documents and controller-gen CRD URLs, through its resources. */
function folderGroups(ws: Workspace, dir: string, seen: Set<string>, out: Set<string>): void {
  if (seen.has(dir) || seen.size > 200) return;
  seen.add(dir);
  const kfile = KUSTOMIZATION_FILES.map((n) => ws.files.get(`${dir}/${n}`)).find(Boolean);
  const config = kfile && asRecord(kustomizeConfigOf(kfile)?.value);
  const entries = config ? asArray(config.resources).map(asString).filter((e): e is string => !!e) : (ws.listDir(dir)?.files ?? []);
  for (const entry of entries) {
    if (isRemoteResource(entry)) {
      for (const g of crdGroupsOfUrl(entry)) out.add(g);
      continue;
    }
    let rel = entry.startsWith('./') ? entry.slice(2) : entry;
    while (rel.endsWith('/')) rel = rel.slice(0, -1);
    const target = `${dir}/${rel}`;
    if (target.split('/').includes('..')) continue;
    const file = ws.files.get(target);
    if (file) {
      for (const o of objectsOf(file)) {
        const group = o.kind === 'CustomResourceDefinition' ? asString(asRecord(o.body.spec)?.group) : undefined;
        if (group) out.add(group);
      }
    } else if (ws.hasDir(target)) folderGroups(ws, target, seen, out);
  }
}

/** The task runner's `kubectl apply` steps whose CRD groups can be told. */
export function taskRunnerSteps(model: RepoModel): BootstrapStep[] {
  const cached = stepsCache.get(model);
  if (cached) return cached;
  const ws = model.workspace;
  const out: BootstrapStep[] = [];
  for (const file of ws.files.values()) {
    if (!isTaskFile(file.path)) continue;
    const texts: string[] = [];
    for (const doc of file.docs) strings(doc.value, texts);
    for (const text of texts) {
      if (!text.includes('kubectl')) continue;
      const { kustomize, files } = kubectlTargets(text);
      for (const k of kustomize) {
        const { dirs, suffix } = foldersFor(ws, k);
        for (const dir of dirs) {
          const groups = new Set<string>();
          folderGroups(ws, dir, new Set(), groups);
          const scope = suffix ? [dir.slice(0, dir.length - suffix.length - 1)] : undefined;
          if (groups.size) out.push({ file: file.path, command: `kubectl apply --kustomize ${k}`, groups: [...groups].sort(), ...(scope ? { scope } : {}) });
        }
      }
      for (const f of files) {
        const groups = isRemoteResource(f) ? crdGroupsOfUrl(f) : [];
        if (groups.length) out.push({ file: file.path, command: `kubectl apply -f ${f}`, groups });
      }
    }
  }
  stepsCache.set(model, out);
  return out;
}

const stepsCache = new WeakMap<RepoModel, BootstrapStep[]>();
