/**
 * Variables of a shell script, read without running it: `name=value` assignments (also after
 * `export`, `readonly`, `local`, `declare`) and functions called with arguments. A command in a
 * function body is read once per call of the function, `$1`… standing for the call's words and the
 * body's own assignments (`artifact_name=$1`) for theirs; a command elsewhere sees the script's
 * assignments. What cannot be told (command substitution, a variable never assigned) stays written.
 */
import { splitCommands, MAX_COMMANDS, type CommandWords } from './commands';

/** Calls read per function, lines a function body may span, and functions per script. */
const MAX_CALLS = 200;
const MAX_BODY_LINES = 2000;
const MAX_FUNCTIONS = 1000;
/** Assignments of a function body read before one of its commands; commands read per call in all. */
const MAX_LOCALS = 50;
const MAX_EXPANDED = 5000;
/** Assignment lines read outside functions. */
const MAX_GLOBALS = 2000;

interface ShellFunction {
  readonly name: string;
  /** 1-based lines of the header and of the closing `}`. */
  readonly start: number;
  readonly end: number;
}

const ASSIGNMENT = /^\s*(?:(?:export|readonly|local|declare(?:\s+-[A-Za-z]+)*)\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;
const HEADER = /^(\s*)(?:function\s+([A-Za-z_][A-Za-z0-9_-]*)\s*(?:\(\))?|([A-Za-z_][A-Za-z0-9_-]*)\s*\(\))\s*\{?\s*$/;

/** The commands with the script's variables put in. */
export function expandShellVariables(text: string, commands: CommandWords[]): CommandWords[] {
  if (!text.includes('=') || !text.includes('$')) return commands;
  const lines = text.split('\n');
  const functions = functionsOf(lines);
  // The function whose body holds each line (1-based lines, -1: none).
  const owner = new Int32Array(lines.length + 2).fill(-1);
  functions.forEach((f, k) => owner.fill(k, f.start + 1, f.end));
  const inFunction = (line: number) => (owner[line] >= 0 ? functions[owner[line]] : undefined);
  const globals = new Map<string, string>();
  for (let i = 0, read = 0; i < lines.length && read < MAX_GLOBALS; i++) {
    if (inFunction(i + 1) || !lines[i].includes('=')) continue;
    read++;
    assign(lines[i], globals, globals);
  }
  const byName = new Map(functions.map((f) => [f.name, f]));
  const calls = new Map<string, CommandWords[]>(functions.map((f) => [f.name, []]));
  for (let i = 0; i < lines.length && functions.length; i++) {
    const t = lines[i].trim();
    const name = t.slice(0, t.search(/\s|$/));
    const f = byName.get(name);
    const list = calls.get(name);
    if (!f || !list || list.length >= MAX_CALLS || (i + 1 >= f.start && i + 1 <= f.end)) continue;
    const words = splitCommands(t)[0] ?? [];
    list.push({ line: i + 1, words: words.slice(1).map((w) => substitute(w, globals)) });
  }
  const out: CommandWords[] = [];
  let expanded = 0;
  for (const cmd of commands) {
    if (out.length >= MAX_COMMANDS) break;
    const f = inFunction(cmd.line);
    const fCalls = f ? calls.get(f.name)! : [];
    if (!f || !fCalls.length) {
      out.push({ ...cmd, words: cmd.words.map((w) => substitute(w, globals)) });
      continue;
    }
    // The body's assignments before the command, parsed once, read per call with its words.
    const assignments: Assignment[] = [];
    for (let l = f.start; l < cmd.line - 1 && assignments.length < MAX_LOCALS; l++) {
      const a = parseAssignment(lines[l]);
      if (a) assignments.push(a);
    }
    for (const call of fCalls) {
      if (out.length >= MAX_COMMANDS || expanded++ >= MAX_EXPANDED) break;
      const locals = new Map<string, string | undefined>();
      call.words.slice(0, 9).forEach((w, i) => locals.set(String(i + 1), w));
      const vars = { get: (name: string) => (locals.has(name) ? locals.get(name) : globals.get(name)) };
      for (const a of assignments) locals.set(a.name, a.value === undefined ? undefined : substitute(a.value, vars));
      out.push({ line: call.line, words: cmd.words.map((w) => substitute(w, vars)) });
    }
  }
  return out;
}

/** Functions and the line of their closing `}` (the first at the header's indentation or less). */
function functionsOf(lines: readonly string[]): ShellFunction[] {
  const out: ShellFunction[] = [];
  for (let i = 0; i < lines.length && out.length < MAX_FUNCTIONS; i++) {
    const m = HEADER.exec(lines[i]);
    if (!m) continue;
    const indent = m[1].length;
    let j = i + 1;
    for (; j < lines.length && j - i < MAX_BODY_LINES; j++) {
      const t = lines[j].trimEnd();
      if (t.trim() === '}' && t.length - 1 <= indent) break;
    }
    if (j >= lines.length || j - i >= MAX_BODY_LINES) continue;
    out.push({ name: m[2] ?? m[3], start: i + 1, end: j + 1 });
    i = j;
  }
  return out;
}

interface Assignment {
  readonly name: string;
  /** The value as written (unquoted); undefined when it comes from a command (not known). */
  readonly value: string | undefined;
}

function parseAssignment(line: string): Assignment | undefined {
  const m = ASSIGNMENT.exec(line);
  if (!m) return undefined;
  const raw = m[2].trim();
  if (raw.startsWith('(') || raw.includes('$(') || raw.includes('`')) return { name: m[1], value: undefined };
  const words = splitCommands(raw)[0] ?? [];
  return { name: m[1], value: words.length > 1 ? undefined : (words[0] ?? '') };
}

/** `name=value` of one line into `into`, the value read with `vars`; a value from a command is not known. */
function assign(line: string, vars: Vars, into: Map<string, string>): void {
  const a = parseAssignment(line);
  if (!a) return;
  if (a.value === undefined) into.delete(a.name);
  else into.set(a.name, substitute(a.value, vars));
}

interface Vars {
  get(name: string): string | undefined;
}

/** `$name`, `${name}`, `${name:-default}` and `$1` of a word, for the variables known. */
export function substitute(word: string, vars: Vars): string {
  if (!word.includes('$')) return word;
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if (c !== '$') {
      out += c;
      continue;
    }
    if (word[i + 1] === '{') {
      const close = word.indexOf('}', i + 2);
      if (close < 0) return out + word.slice(i);
      const inner = word.slice(i + 2, close);
      const dflt = inner.indexOf(':-');
      const name = dflt >= 0 ? inner.slice(0, dflt) : inner;
      const value = vars.get(name) ?? (dflt >= 0 ? inner.slice(dflt + 2) : undefined);
      out += value ?? word.slice(i, close + 1);
      i = close;
      continue;
    }
    let j = i + 1;
    if (/[0-9]/.test(word[j] ?? '')) j++;
    else while (j < word.length && /[A-Za-z0-9_]/.test(word[j])) j++;
    const name = word.slice(i + 1, j);
    const value = name ? vars.get(name) : undefined;
    out += value ?? word.slice(i, j);
    i = j - 1;
  }
  return out;
}
