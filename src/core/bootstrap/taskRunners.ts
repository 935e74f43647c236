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
        factsOfCommand(ctx, 'taskfile', file.path, { line, words: cmd.words }, out);
      }
    }
  }
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
