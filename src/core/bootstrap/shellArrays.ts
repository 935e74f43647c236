/**
 * The loop a bootstrap script runs over a list (`crds=( url … )` then `for crd in "${crds[@]}";
 * kubectl apply -f "${crd}"`), as the commands it runs: one per item. Read with plain string
 * scans, bounded.
 */
import type { CommandWords } from './commands';

const MAX_ITEMS = 1000;

/** Array literals (`name=(`, `local -r name=(`, `declare -a name=(`) and their items, up to `)`. */
function arrays(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const lines = text.split('\n');
  let items = 0;
  for (let i = 0; i < lines.length && items < MAX_ITEMS; i++) {
    const line = lines[i];
    const open = line.indexOf('=(');
    if (open <= 0) continue;
    const words = line.slice(0, open).trim().split(' ');
    const name = words[words.length - 1];
    if (!isName(name)) continue;
    const list: string[] = [];
    // Items on the opening line after `=(` and on the lines up to the closing `)`; the scan goes on
    // after them, so every line is read once.
    let j = i;
    for (let rest = line.slice(open + 2); j < lines.length && items < MAX_ITEMS; rest = lines[++j] ?? '') {
      const hash = rest.trimStart().startsWith('#') ? 0 : -1;
      const close = rest.indexOf(')');
      const body = hash === 0 ? '' : close >= 0 ? rest.slice(0, close) : rest;
      for (const w of body.split(' ')) {
        const word = unquote(w.trim());
        if (word && !word.startsWith('#')) {
          list.push(word);
          items++;
        }
      }
      if (close >= 0 && hash !== 0) break;
    }
    i = j;
    out.set(name, list);
  }
  return out;
}

/** `for v in "${list[@]}"` (or `${list[*]}`): loop variable → array name. */
function loops(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('for ')) continue;
    const parts = t.slice(4).split(' ').filter(Boolean);
    if (parts[1] !== 'in' || !isName(parts[0])) continue;
    const raw = parts[2] ?? '';
    const over = unquote(raw.endsWith(';') ? raw.slice(0, -1) : raw);
    if (!over.startsWith('${') || !(over.endsWith('[@]}') || over.endsWith('[*]}'))) continue;
    const array = over.slice(2, -4);
    if (isName(array)) out.set(parts[0], array);
  }
  return out;
}

/** The commands with each loop variable over a written array replaced by every item. */
export function expandLoops(text: string, commands: CommandWords[]): CommandWords[] {
  if (!text.includes('=(') || !text.includes('for ')) return commands;
  const lists = arrays(text);
  const vars = loops(text);
  if (!lists.size || !vars.size) return commands;
  const out: CommandWords[] = [];
  for (const cmd of commands) {
    const at = cmd.words.findIndex((w) => {
      const v = variableOf(w);
      return v !== undefined && vars.has(v) && lists.has(vars.get(v)!);
    });
    if (at < 0) {
      out.push(cmd);
      continue;
    }
    for (const item of lists.get(vars.get(variableOf(cmd.words[at])!)!)!) {
      out.push({ ...cmd, words: cmd.words.map((w, i) => (i === at ? item : w)) });
    }
  }
  return out;
}

function variableOf(word: string): string | undefined {
  const w = unquote(word);
  if (w.startsWith('${') && w.endsWith('}')) return isName(w.slice(2, -1)) ? w.slice(2, -1) : undefined;
  if (w.startsWith('$')) return isName(w.slice(1)) ? w.slice(1) : undefined;
  return undefined;
}

function unquote(w: string): string {
  return w.length >= 2 && (w[0] === '"' || w[0] === "'") && w[w.length - 1] === w[0] ? w.slice(1, -1) : w;
}

function isName(s: string): boolean {
  if (!s || s.length > 100) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok = c === 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (i > 0 && c >= 48 && c <= 57);
    if (!ok) return false;
  }
  return true;
}
