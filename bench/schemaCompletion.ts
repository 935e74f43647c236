/**
 * Schema bench, part c: completion as the engine answers it (engine.ts `completion`: the buffer the
 * request carries set on the folder, Folder.assistModel, then schemaCompletion with the folder's
 * chart values) at places where a user asks for it in a document's `spec`: on a new line under a
 * mapping key, on a new line beside a key, and after `key: ` with the value deleted.
 */
import * as fs from 'node:fs';
import { schemaCompletion } from '../src/core/schema/assist';
import { parseSourceFile } from '../src/core/yaml/document';
import type { Folder } from '../src/engine/folder';
import { timed } from './inputs';

export interface Place {
  readonly file: string;
  /** The buffer as typed: the file with the edit that asks for completion. */
  readonly text: string;
  readonly offset: number;
  readonly what: 'fields' | 'value';
}

const KEY_LINE = /^( *)(- +)?([A-Za-z0-9_.\-/]+):(?: (.*))?$/;

/** Places in the `spec` of each document of `file` whose kind `wanted` accepts. */
export function placesIn(file: string, wanted: (kind: string, apiVersion: string) => boolean): Place[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: Place[] = [];
  for (const doc of parseSourceFile(file, text).docs) {
    const value = doc.value as Record<string, unknown> | null;
    if (!value || typeof value.kind !== 'string' || typeof value.apiVersion !== 'string' || !wanted(value.kind, value.apiVersion)) continue;
    const lines = text.slice(doc.range[0], doc.range[1]).split('\n');
    let at = doc.range[0];
    let inSpec = false;
    lines.forEach((line, n) => {
      const lineEnd = at + line.length;
      const m = KEY_LINE.exec(line);
      if (line.startsWith('spec:')) inSpec = true;
      else if (m && !m[1] && !m[2]) inSpec = false;
      if (inSpec && m && (m[1] || m[2])) {
        const column = m[1].length + (m[2]?.length ?? 0);
        const rest = (m[4] ?? '').trim();
        const insert = (indent: number) => ({ file, text: `${text.slice(0, lineEnd)}\n${' '.repeat(indent)}${text.slice(lineEnd)}`, offset: lineEnd + 1 + indent, what: 'fields' as const });
        if (!rest) {
          const next = lines.slice(n + 1).find((l) => l.trim() && !l.trimStart().startsWith('#'));
          const nextIndent = next ? next.length - next.trimStart().length : 0;
          out.push(insert(nextIndent > column ? nextIndent : column + 2));
        } else if (!/^[|>{[&*!#]/.test(rest)) {
          out.push(insert(column));
          const keyEnd = at + line.indexOf(':', column) + 2;
          out.push({ file, text: `${text.slice(0, keyEnd)}${text.slice(lineEnd)}`, offset: keyEnd, what: 'value' });
        }
      }
      at = lineEnd + 1;
    });
  }
  return out;
}

/** Up to `n` places, spread evenly over the list. */
export function spread<T>(list: readonly T[], n: number): T[] {
  if (list.length <= n) return [...list];
  return Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
}

export interface Answer {
  /** The buffer just typed: the folder's model rebuilt for it, then the answer. */
  readonly typedMs: number;
  /** The same in this process's CPU time. */
  readonly typedCpuMs: number;
  /** Of typedMs: the buffer set and the model rebuilt. */
  readonly modelMs: number;
  /** Asked again at once: the answer alone. */
  readonly againMs: number;
  readonly items: number;
}

/**
 * What engine.ts runs for a `completion` request carrying `text`; `modelMs` up to the model
 * (Folder.assistModel: the last one when the edit cannot change the answer, else rebuilt).
 */
function answer(folder: Folder, place: Place): { items: number; modelMs: number } {
  const t0 = performance.now();
  if (folder.repo.workspace.readText(place.file) !== place.text) folder.repo.setBuffer(place.file, place.text);
  const model = folder.assistModel(place.file, place.offset);
  const modelMs = performance.now() - t0;
  return { items: schemaCompletion(model, place.file, place.offset, (hr) => folder.chartValues(hr, model)).length, modelMs };
}

export function timeCompletions(folder: Folder, places: readonly Place[]): Answer[] {
  const out: Answer[] = [];
  for (const place of places) {
    const typed = timed(() => answer(folder, place));
    const again = timed(() => answer(folder, place));
    out.push({ typedMs: typed.wallMs, typedCpuMs: typed.cpuMs, modelMs: typed.value.modelMs, againMs: again.wallMs, items: typed.value.items });
    folder.repo.setBuffer(place.file, undefined);
    // As in the editor, where the debounced update after the last keystroke rebuilt it: the next
    // place's keystroke finds the model current.
    folder.model();
  }
  folder.model();
  return out;
}
