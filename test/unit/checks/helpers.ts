import * as fs from 'node:fs';
import * as path from 'node:path';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { diskHost } from '../../../src/node/fsHost';
import { checkModel, type CheckResult } from '../../../src/core/checks/index';

export const REPO_ROOT = path.resolve(__dirname, '../../..').split(path.sep).join('/');
export const FIXTURES = `${REPO_ROOT}/test/fixtures/checks`;
/** Shared read-only test data, next to the repository in CI as on dev machines. */
export const SHARED = path.resolve(REPO_ROOT, '../shared').split(path.sep).join('/');

export function diskRepo(dir: string): Repo {
  return new Repo(dir, diskHost);
}

export function memoryRepo(files: Record<string, string>, root = '/repo'): Repo {
  return new Repo(root, memoryHost(root, files));
}

/**
 * The findings of every rule; the schema rules only when asked. Most layouts of these tests leave
 * out fields only the schema reads (`interval`, `prune`); the schema rules have their own tests.
 */
export function check(repo: Repo, options: { schema?: boolean } = {}): CheckResult {
  const result = checkModel(repo.model());
  if (options.schema) return result;
  return { ...result, diagnostics: result.diagnostics.filter((d) => !d.rule.startsWith('schema-')) };
}

/** `rule|relative/file|line` of each diagnostic (1-based line). */
export function keys(repo: Repo, result: CheckResult): string[] {
  const root = repo.workspace.root;
  return result.diagnostics.map((d) => `${d.rule}|${d.file.slice(root.length + 1)}|${d.range.start.line + 1}`).sort();
}

/** The `# expect: rule[, rule]` markers of a fixture repo, as `rule|file|line`. */
export function expectedMarkers(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = `${d}/${entry.name}`;
      if (entry.isDirectory()) walk(p);
      else
        fs.readFileSync(p, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            const m = /#\s*expect:\s*([a-z-]+(?:\s*,\s*[a-z-]+)*)/.exec(line);
            if (m) for (const rule of m[1].split(',')) out.push(`${rule.trim()}|${p.slice(dir.length + 1)}|${i + 1}`);
          });
    }
  };
  walk(dir);
  return out.sort();
}
