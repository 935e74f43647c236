/**
 * Task runners and scripts run before Flux: Taskfiles (`Taskfile.yaml` and included task files,
 * whose commands are YAML strings), justfiles and `*.just` modules, Makefiles and shell scripts
 * (text, line by line). Each command is read by `factsOfCommand`.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { SourceFile } from '../yaml/document';
import type { BootstrapFact, BootstrapReader } from './facts';
import { commandsOf } from './commands';
import { factsOfCommand, type ReadContext } from './steps';

export function isTaskFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return /^taskfile(\.dist)?\.ya?ml$/i.test(base) || ((path.includes('/.taskfiles/') || path.includes('/.taskfile/')) && /\.ya?ml$/.test(base));
}

/** Scalars of a document with the 1-based line each starts on (commands sit under `tasks.*.cmds`, `cmd`…). */
function scalars(file: SourceFile, node: unknown, out: { text: string; line: number }[], depth = 0): void {
  if (depth > 20 || out.length > 10_000) return;
  if (isScalar(node)) {
    if (typeof node.value === 'string' && node.range) out.push({ text: node.value, line: file.lines.position(node.range[0]).line + 1 });
  } else if (isMap(node)) {
    for (const pair of node.items) scalars(file, pair.value, out, depth + 1);
  } else if (isSeq(node)) {
    for (const item of node.items) scalars(file, item, out, depth + 1);
  }
}

function taskfileFacts(ctx: ReadContext, file: SourceFile, out: BootstrapFact[]): void {
  if (!file.text.includes('kubectl') && !file.text.includes('helm') && !file.text.includes('flux')) return;
  for (const doc of file.docs) {
    const strings: { text: string; line: number }[] = [];
    scalars(file, (doc.node as { contents?: Node | null }).contents, strings);
    for (const s of strings) {
      for (const cmd of commandsOf(s.text)) factsOfCommand(ctx, 'taskfile', file.path, { line: s.line + cmd.line - 1, words: cmd.words }, out);
    }
  }
}

const READER: Record<string, BootstrapReader> = { justfile: 'justfile', makefile: 'makefile', shell: 'shell' };

/** Facts of every task runner and script of the repository. */
export function taskRunnerFacts(ctx: ReadContext): BootstrapFact[] {
  const out: BootstrapFact[] = [];
  for (const file of ctx.yamlByPath.values()) if (isTaskFile(file.path)) taskfileFacts(ctx, file, out);
  for (const file of ctx.files.files) {
    const reader = file.runner && READER[file.runner];
    if (!reader) continue;
    for (const cmd of commandsOf(file.text)) factsOfCommand(ctx, reader, file.path, cmd, out);
  }
  return out;
}
