/**
 * One workspace folder inside the engine: its workspace and model (kept in step by `Repo`), the
 * latest check results and what was last published per file.
 */
import { checkModel, type Diagnostic } from '../core/checks/index';
import type { BuildOptions, RepoModel } from '../core/model/graph';
import { Repo } from '../core/repo';
import type { WorkspaceHost } from '../core/workspace/host';
import type { EngineDiagnostic, FileDiagnostics } from './protocol';

export class Folder {
  readonly repo: Repo;
  /** Latest check results per file (with fix hints, for code actions). */
  private checked: { version: number; byFile: Map<string, Diagnostic[]>; failures: { rules: string; message: string }[] } | undefined;
  private readonly published = new Map<string, string>();

  constructor(
    readonly root: string,
    host: WorkspaceHost,
    options: BuildOptions,
  ) {
    this.repo = new Repo(root, host, options);
  }

  model(): RepoModel {
    return this.repo.model();
  }

  get version(): number {
    return this.repo.workspace.version;
  }

  /** Holds anything Flux applies or could apply: only such folders get a tree. */
  hasFlux(): boolean {
    const m = this.model();
    return m.clusters.length > 0 || m.unapplied.length > 0;
  }

  owns(path: string): boolean {
    return this.repo.workspace.isUnderRoot(path);
  }

  /** Runs the checks when the model changed since the last run; rule failures go to `log`. */
  diagnostics(log: (m: string) => void): Map<string, Diagnostic[]> {
    return this.check(log).byFile;
  }

  check(log: (m: string) => void): { byFile: Map<string, Diagnostic[]>; failures: { rules: string; message: string }[] } {
    if (this.checked?.version === this.version) return this.checked;
    const result = checkModel(this.model());
    for (const f of result.failures) log(`[checks] internal error in ${f.rules}: ${f.message}`);
    const byFile = new Map<string, Diagnostic[]>();
    for (const d of result.diagnostics) {
      const list = byFile.get(d.file);
      if (list) list.push(d);
      else byFile.set(d.file, [d]);
    }
    this.checked = { version: this.version, byFile, failures: result.failures };
    return this.checked;
  }

  /** Files whose diagnostics differ from the last publication (an empty list clears a file). */
  changedDiagnostics(log: (m: string) => void): FileDiagnostics[] {
    const byFile = this.diagnostics(log);
    const out: FileDiagnostics[] = [];
    for (const file of [...this.published.keys()]) {
      if (byFile.has(file)) continue;
      this.published.delete(file);
      out.push({ file, diagnostics: [] });
    }
    for (const [file, list] of byFile) {
      const plain = list.map(toEngineDiagnostic);
      const key = JSON.stringify(plain);
      if (this.published.get(file) === key) continue;
      this.published.set(file, key);
      out.push({ file, diagnostics: plain });
    }
    return out;
  }
}

export function toEngineDiagnostic(d: Diagnostic): EngineDiagnostic {
  return {
    file: d.file,
    range: d.range,
    rule: d.rule,
    severity: d.severity,
    message: d.message,
    related: d.related.map((r) => ({ file: r.file, range: r.range, message: r.message })),
  };
}
