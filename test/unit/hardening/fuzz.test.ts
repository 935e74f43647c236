import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { CORPORA } from '../helpers';
import { render, toCli } from '../../../src/cli/commands/check';
import { checkModel, RULES } from '../../../src/core/checks/index';
import { Repo } from '../../../src/core/repo';
import { treeJson, treeText } from '../../../src/core/tree/treeData';
import { memoryHost } from '../../../src/core/workspace/host';

/**
 * Property-based fuzzing of `check` and `tree` (the functions the CLI commands run) over the
 * shared corpora: one file of a real repository is mutated (lines dropped, duplicated, swapped,
 * re-indented, YAML punctuation or aliases spliced in, truncated) and the whole repository is
 * analysed again. Seeded, and few runs, so the unit tier stays fast and failures reproduce.
 */
const CORPUS_NAMES = ['flux2-kustomize-helm-example', 'flux2-multi-tenancy', 'flux2-hub-spoke-example'];
const SEED = 20251123;

function loadCorpus(name: string): Record<string, string> {
  const root = path.join(CORPORA, name);
  if (!fs.existsSync(root)) throw new Error(`corpus ${root} is missing: the shared folder must sit beside the repository`);
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.ya?ml$/.test(e.name)) files[path.relative(root, p).split(path.sep).join('/')] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return files;
}

const TOKENS = ['&a ', '*a', '&a [*a]', '[', ']', '{', '}', ': ', '- ', '---', '...', '!!binary ', '"', "'", '#', '|', '>', '${', '${x:=', '}', '\t', '\u0000', '? ', '<<: *a', '%YAML 1.1', 'dependsOn:\n  - name: ', 'path: ./', 'path: ..', 'resources:\n  - ../'];

type Mutation =
  | { kind: 'drop'; line: number; count: number }
  | { kind: 'duplicate'; line: number; times: number }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'indent'; line: number; by: number }
  | { kind: 'splice'; at: number; token: string }
  | { kind: 'truncate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), line: fc.nat(), count: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), line: fc.nat(), times: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('indent' as const), line: fc.nat(), by: fc.integer({ min: -4, max: 4 }) }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), token: fc.constantFrom(...TOKENS) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function mutate(text: string, m: Mutation): string {
  const lines = text.split('\n');
  const n = Math.max(lines.length, 1);
  switch (m.kind) {
    case 'drop':
      lines.splice(m.line % n, m.count);
      return lines.join('\n');
    case 'duplicate':
      lines.splice(m.line % n, 0, ...Array(m.times).fill(lines[m.line % n] ?? ''));
      return lines.join('\n');
    case 'swap': {
      const [a, b] = [m.a % n, m.b % n];
      [lines[a], lines[b]] = [lines[b], lines[a]];
      return lines.join('\n');
    }
    case 'indent': {
      const i = m.line % n;
      lines[i] = m.by >= 0 ? ' '.repeat(m.by) + lines[i] : lines[i].replace(new RegExp(`^ {0,${-m.by}}`), '');
      return lines.join('\n');
    }
    case 'splice': {
      const at = m.at % (text.length + 1);
      return text.slice(0, at) + m.token + text.slice(at);
    }
    case 'truncate':
      return text.slice(0, m.at % (text.length + 1));
  }
}

const SEVERITIES = new Set(['error', 'warning', 'info']);

for (const name of CORPUS_NAMES) {
  test(`mutated ${name}: check and tree never throw, diagnostics stay well-formed and bounded`, () => {
    const files = loadCorpus(name);
    const paths = Object.keys(files).sort();
    assert.ok(paths.length > 10, `${name} has manifests`);
    const root = '/corpus';
    const repo = new Repo(root, memoryHost(root, files));
    const baseline = render('json', checkModel(repo.model()).diagnostics.map((d) => toCli(root, d))).length;
    fc.assert(
      fc.property(fc.nat(paths.length - 1), fc.array(mutation, { minLength: 1, maxLength: 4 }), (index, mutations) => {
        const file = `${root}/${paths[index]}`;
        const text = mutations.reduce(mutate, files[paths[index]]);
        repo.setBuffer(file, text);
        try {
          const model = repo.model();
          const result = checkModel(model);
          assert.deepEqual(result.failures, []);
          const list = result.diagnostics.map((d) => toCli(root, d));
          for (const d of list) {
            assert.ok(d.rule in RULES, `unknown rule ${d.rule}`);
            assert.ok(SEVERITIES.has(d.severity));
            assert.ok(d.file && !d.file.startsWith('/'), `file relative to the root: ${d.file}`);
            assert.ok(Number.isInteger(d.line) && d.line >= 1 && Number.isInteger(d.column) && d.column >= 1);
            assert.ok(d.endLine > d.line || (d.endLine === d.line && d.endColumn >= d.column));
            assert.ok(d.message.length > 0 && d.message.length < 2000, `message of ${d.message.length} characters`);
          }
          // One edited file may add findings, never blow the report up.
          assert.ok(render('json', list).length < baseline * 4 + 200_000);
          JSON.stringify(treeJson(model));
          treeText(model);
        } finally {
          repo.setBuffer(file, undefined);
        }
      }),
      { seed: SEED, numRuns: 30 },
    );
  });
}
