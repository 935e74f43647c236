/**
 * Task runners and scripts run before Flux: Taskfiles (`Taskfile.yaml` and included task files,
 * whose commands are YAML strings), justfiles and `*.just` modules, Makefiles and shell scripts
 * (text, line by line). Each command is read by `factsOfCommand`.
 */
import { expandLoops } from './shellArrays';
import { expandShellVariables } from './shellVars';
import type { SourceFile } from '../yaml/document';
import type { BootstrapFact, BootstrapReader } from './facts';
import { commandsOf } from './commands';
import { factsOfCommand, type ReadContext } from './steps';
import { textMarks } from './files';
import { normalize } from './writtenPaths';

export function isTaskFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return /^taskfile(\.dist)?\.ya?ml$/i.test(base) || ((path.includes('/.taskfiles/') || path.includes('/.taskfile/')) && /\.ya?ml$/.test(base));
}

/** Strings of a document's value (commands sit under `tasks.*.cmds`, `cmd`…). */
function strings(v: unknown, out: string[], depth = 0): void {
  if (depth > 20 || out.length > 10_000) return;
  if (typeof v === 'string') {
    if (v.includes('kubectl') || v.includes('helm') || v.includes('flux')) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) strings(x, out, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out, depth + 1);
}

/**
 * Commands of a Taskfile with the line each is written on: found in the text from where the
 * previous one was, so the document is not parsed again for positions.
 */
function taskfileFacts(ctx: ReadContext, file: SourceFile, out: BootstrapFact[]): void {
  if (!textMarks(file).commands) return;
  const vars = taskVars(ctx, file);
  let cursor = 0;
  for (const doc of file.docs) {
    const found: string[] = [];
    strings(doc.value, found);
    for (const s of found) {
      const lines = s.split('\n');
      for (const cmd of commandsOf(s)) {
        const written = lines[cmd.line - 1].trim();
        const at = written ? file.text.indexOf(written, cursor) : -1;
        if (at >= 0) cursor = at + written.length;
        const line = file.lines.position(at >= 0 ? at : cursor).line + 1;
        factsOfCommand(ctx, 'taskfile', file.path, { line, words: cmd.words.map((w) => expandedPath(ctx, w, vars, file.path.slice(0, file.path.lastIndexOf('/')))) }, out);
      }
    }
  }
}

/**
 * The variables a Taskfile's commands see, as far as they are plain text: the root Taskfile's
 * top-level `vars` (an included file sees them), then the file's own, with `ROOT_DIR` and
 * `TASKFILE_DIR`. A variable set by a command (`sh:`) or given on the command line stays as written,
 * and its path is then matched in every folder.
 */
function taskVars(ctx: ReadContext, file: SourceFile): Map<string, string> {
  const root = ctx.ws.root;
  const vars = new Map<string, string>([
    ['ROOT_DIR', root],
    ['TASKFILE_DIR', file.path.slice(0, file.path.lastIndexOf('/'))],
  ]);
  const rootFile = ['Taskfile.yaml', 'Taskfile.yml', 'taskfile.yaml', 'taskfile.yml'].map((n) => ctx.yamlByPath.get(`${root}/${n}`)).find(Boolean);
  for (const f of rootFile && rootFile !== file ? [rootFile, file] : [file]) {
    const top = f.docs[0]?.value;
    const declared = top && typeof top === 'object' && !Array.isArray(top) ? (top as Record<string, unknown>).vars : undefined;
    if (!declared || typeof declared !== 'object' || Array.isArray(declared)) continue;
    for (const [k, v] of Object.entries(declared)) if (typeof v === 'string' && k !== 'ROOT_DIR' && k !== 'TASKFILE_DIR') vars.set(k, v);
  }
  return vars;
}

/**
 * A word with its variables expanded when that names a file or folder of the repository; else as
 * written, so that its path is matched in every folder (a Taskfile whose `CLUSTER_DIR` still says
 * `kubernetes` after the clusters moved to `kubernetes/<name>`).
 */
function expandedPath(ctx: ReadContext, word: string, vars: ReadonlyMap<string, string>, fromDir: string): string {
  const expanded = expandTaskVars(word, vars);
  if (expanded === word || expanded.includes('{{')) return word;
  const root = ctx.ws.root;
  const exists = (p: string | undefined) => p !== undefined && (ctx.dirFiles.has(p) || ctx.files.paths.has(p) || ctx.yamlByPath.has(p));
  const at = expanded.startsWith('/') ? [joined('', expanded)] : [joined(fromDir, expanded), joined(root, expanded)];
  return at.some((p) => p !== undefined && (p === root || p.startsWith(`${root}/`)) && exists(p)) ? expanded : word;
}

/** `rel` joined to the absolute folder `dir`, `.` and `..` resolved; undefined above `/`. */
function joined(dir: string, rel: string): string | undefined {
  const path = normalize(`${dir}/${rel}`.split('/'));
  return path === undefined ? undefined : `/${path}`;
}

/** `{{.NAME}}` of a word replaced by its value, values that name others included (a few levels). */
export function expandTaskVars(word: string, vars: ReadonlyMap<string, string>): string {
  let out = word;
  for (let i = 0; i < 5 && out.includes('{{'); i++) {
    const next = out.replace(/\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (m, name: string) => vars.get(name) ?? m);
    if (next === out) break;
    out = next;
  }
  return out;
}

const READER: Record<string, BootstrapReader> = { justfile: 'justfile', makefile: 'makefile', shell: 'shell' };

/** Facts of every task runner and script of the repository (`only`: of those whose text it accepts). */
export function taskRunnerFacts(ctx: ReadContext, only?: (text: string) => boolean): BootstrapFact[] {
  const out: BootstrapFact[] = [];
  for (const file of ctx.yamlByPath.values()) if (isTaskFile(file.path) && (!only || only(file.text))) taskfileFacts(ctx, file, out);
  for (const file of ctx.files.files) {
    const reader = file.runner && READER[file.runner];
    if (!reader || (only && !only(file.text))) continue;
    const commands = expandLoops(file.text, commandsOf(file.text));
    for (const cmd of reader === 'shell' ? expandShellVariables(file.text, commands) : commands) factsOfCommand(ctx, reader, file.path, cmd, out);
  }
  return out;
}
