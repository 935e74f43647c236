import { runCli } from '../../../src/cli/main';
import { render, toCli, type CliDiagnostic } from '../../../src/cli/commands/check';
import { checkModel } from '../../../src/core/checks/index';
import { Repo } from '../../../src/core/repo';
import { treeJson, treeText, type TreeJson } from '../../../src/core/tree/treeData';
import { memoryHost } from '../../../src/core/workspace/host';

export interface CheckRun {
  code: number;
  stdout: string;
  stderr: string;
  diagnostics: CliDiagnostic[];
}

/** `gitops-preview check DIR --format json`, in-process (the function the CLI runs). */
export async function checkCli(dir: string): Promise<CheckRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['check', dir, '--format', 'json'], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: dir, env: {} });
  return { code, stdout, stderr, diagnostics: code === 2 ? [] : (JSON.parse(stdout) as { diagnostics: CliDiagnostic[] }).diagnostics };
}

/** `gitops-preview tree DIR --format json`, in-process. */
export async function treeCli(dir: string): Promise<{ code: number; stderr: string; tree: TreeJson | undefined }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['tree', dir, '--format', 'json'], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: dir, env: {} });
  return { code, stderr, tree: code === 0 ? (JSON.parse(stdout) as TreeJson) : undefined };
}

/**
 * The same check and tree over an in-memory copy of a repository (no disk walk), for inputs whose
 * hostility is in their structure rather than in the filesystem.
 */
export function checkMemory(files: Record<string, string>, root = '/repo'): CheckRun & { repo: Repo } {
  const repo = new Repo(root, memoryHost(root, files));
  const result = checkModel(repo.model());
  const diagnostics = result.diagnostics.map((d) => toCli(root, d));
  const code = result.failures.length ? 2 : diagnostics.some((d) => d.severity === 'error') ? 1 : 0;
  return { code, stdout: render('json', diagnostics), stderr: result.failures.map((f) => f.message).join('\n'), diagnostics, repo };
}

export function treeMemory(repo: Repo): TreeJson {
  const tree = treeJson(repo.model());
  treeText(repo.model());
  return tree;
}
