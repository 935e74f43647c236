/**
 * The files a repository's bootstrap is written in, wherever they are: `.sourceignore` hides files
 * from Flux, not from the person who runs `just bootstrap` or `helmfile apply` before Flux, so
 * folders the workspace scan left out are read here too. Non-YAML files (justfiles, Makefiles, shell
 * scripts, helmfile templates) are read by name. Bounded: a repository is untrusted input.
 */
import type { Workspace } from '../workspace/workspace';
import { parseSourceFile, type SourceFile } from '../yaml/document';
import { isManifestFileName } from '../workspace/scanned';

export type RunnerKind = 'justfile' | 'makefile' | 'shell' | 'helmfile-template';

/** A bootstrap file the workspace scan does not hold parsed: a script, or any file of a hidden folder. */
export interface BootstrapFile {
  readonly path: string;
  readonly text: string;
  /** What reads it as commands; undefined for YAML. */
  readonly runner?: RunnerKind;
  /** For YAML files of hidden folders: parsed when a reader first needs its documents. */
  readonly yaml?: SourceFile;
}

export interface BootstrapFiles {
  /** Scripts of the repository and YAML files of hidden folders. */
  readonly files: readonly BootstrapFile[];
  /** YAML files as the readers see them: the workspace's own, then those of hidden folders. */
  readonly yaml: readonly SourceFile[];
  /** Every file path known, for resolving the paths scripts name. */
  readonly paths: ReadonlySet<string>;
}

/** Per file, per folder listed and in total: past these a bootstrap is not what is being read. */
export const BOOTSTRAP_LIMITS = { fileBytes: 1024 * 1024, totalBytes: 16 * 1024 * 1024, files: 2000, dirs: 5000 };

const SCRIPT_DIRS = new Set(['scripts', 'script', 'hack', 'bin']);

/** How a file is read as commands, by its name (and folder, for extensionless scripts). */
export function runnerKindOf(name: string, dir: string): RunnerKind | 'maybe-shell' | undefined {
  const lower = name.toLowerCase();
  if (lower === 'justfile' || lower === '.justfile' || lower.endsWith('.just')) return 'justfile';
  if (lower === 'makefile' || lower === 'gnumakefile' || lower.endsWith('.mk')) return 'makefile';
  if (lower.endsWith('.sh') || lower.endsWith('.bash')) return 'shell';
  if (lower.endsWith('.gotmpl')) return 'helmfile-template';
  if (!name.includes('.') && SCRIPT_DIRS.has(dir.slice(dir.lastIndexOf('/') + 1))) return 'maybe-shell';
  return undefined;
}

/** A YAML file rendered by a template engine before use (a Talos machine config `machineconfig.yaml.j2`). */
function isYamlTemplateName(name: string): boolean {
  const lower = name.toLowerCase();
  return ['.yaml.j2', '.yml.j2', '.yaml.tmpl', '.yml.tmpl', '.yaml.tpl', '.yml.tpl'].some((e) => lower.endsWith(e));
}

/**
 * The template's YAML with its markup neutralised, line for line: block tags (`{% … %}`, `{# … #}`)
 * alone on a line become blank lines, and each `{{ … }}` becomes a plain word. A template that
 * is still not YAML then is read as far as it parses, as any YAML file.
 */
export function withoutTemplateMarkup(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const t = line.trimStart();
      if (t.startsWith('{%') || t.startsWith('{#')) return '';
      let out = '';
      let at = 0;
      for (let open = line.indexOf('{{', at); open >= 0; open = line.indexOf('{{', at)) {
        const close = line.indexOf('}}', open + 2);
        if (close < 0) break;
        out += `${line.slice(at, open)}templated`;
        at = close + 2;
      }
      return out + line.slice(at);
    })
    .join('\n');
}

const cache = new WeakMap<Workspace, { version: number; files: BootstrapFiles }>();

export function bootstrapFiles(ws: Workspace): BootstrapFiles {
  const cached = cache.get(ws);
  // Scripts are read again when files appear or vanish; the workspace's YAML is always current.
  if (cached && cached.version === ws.treeVersion) return { ...cached.files, yaml: [...ws.files.values(), ...cached.files.files.flatMap((f) => (f.yaml ? [f.yaml] : []))] };
  const files: BootstrapFile[] = [];
  const paths = new Set<string>();
  let bytes = 0;
  const read = (path: string, name: string, dir: string, hidden: boolean) => {
    paths.add(path);
    if (files.length >= BOOTSTRAP_LIMITS.files || bytes >= BOOTSTRAP_LIMITS.totalBytes) return;
    const kind = runnerKindOf(name, dir);
    const template = isYamlTemplateName(name);
    const yaml = (hidden && isManifestFileName(name)) || template;
    if (!kind && !yaml) return;
    const text = ws.readText(path, BOOTSTRAP_LIMITS.fileBytes);
    if (text === undefined) return;
    bytes += text.length;
    if (kind === 'maybe-shell') {
      if (text.startsWith('#!') && /^#![^\n]*\b(ba|z|k|da)?sh\b/.test(text.slice(0, 200))) files.push({ path, text, runner: 'shell' });
    } else if (kind) files.push({ path, text, runner: kind });
    else files.push({ path, text, yaml: parseSourceFile(path, template ? withoutTemplateMarkup(text) : text) });
  };
  const hiddenRoots: string[] = [];
  const stack = [ws.root];
  let dirs = 0;
  while (stack.length && dirs++ < BOOTSTRAP_LIMITS.dirs) {
    const dir = stack.pop()!;
    const listed = ws.listDir(dir);
    if (!listed) continue;
    for (const name of listed.files) read(`${dir}/${name}`, name, dir, false);
    for (const name of listed.dirs) stack.push(`${dir}/${name}`);
  }
  for (const dir of ws.skippedDirs) {
    const name = dir.slice(dir.lastIndexOf('/') + 1);
    const parent = dir.slice(0, dir.lastIndexOf('/'));
    if (name === '.git' || name === 'node_modules' || (name === 'templates' && ws.chartDirs.has(parent))) continue;
    hiddenRoots.push(dir);
  }
  // Files of a visible folder that `.sourceignore` names (`.justfile` under a `.*` rule): the root's only.
  for (const name of ws.listHiddenDir(ws.root).files) {
    const path = `${ws.root}/${name}`;
    if (!ws.listDir(ws.root)?.files.has(name)) read(path, name, ws.root, true);
  }
  const hiddenStack = [...hiddenRoots];
  while (hiddenStack.length && dirs++ < BOOTSTRAP_LIMITS.dirs) {
    const dir = hiddenStack.pop()!;
    const listed = ws.listHiddenDir(dir);
    for (const name of listed.files) read(`${dir}/${name}`, name, dir, true);
    for (const name of listed.dirs) hiddenStack.push(`${dir}/${name}`);
  }
  for (const path of ws.files.keys()) paths.add(path);
  const out: BootstrapFiles = { files, yaml: [], paths };
  cache.set(ws, { version: ws.treeVersion, files: out });
  return { ...out, yaml: [...ws.files.values(), ...files.flatMap((f) => (f.yaml ? [f.yaml] : []))] };
}

/** What a YAML file's text may hold, read once per parsed file: most files of a repository hold none of it. */
export interface TextMarks {
  /** A top-level `releases:` key (a helmfile). */
  readonly releases: boolean;
  /** `extraManifests` or `inlineManifests` (a Talos config). */
  readonly talos: boolean;
  /** A command of kubectl, helm or flux. */
  readonly commands: boolean;
}

const marks = new WeakMap<SourceFile, TextMarks>();

export function textMarks(file: SourceFile): TextMarks {
  let m = marks.get(file);
  if (!m) {
    const t = file.text;
    m = {
      // Block style at the line's start, or a flow mapping's key (`{ releases: [...] }`, JSON style).
      releases: t.startsWith('releases:') || t.includes('\nreleases:') || (t.includes('releases') && /[{,]\s*["']?releases["']?\s*:/.test(t)),
      talos: t.includes('extraManifests') || t.includes('inlineManifests'),
      commands: t.includes('kubectl') || t.includes('helm') || t.includes('flux'),
    };
    marks.set(file, m);
  }
  return m;
}
