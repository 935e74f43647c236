import * as vscode from 'vscode';
import type { DriftReport } from '../../core/drift';

/** One finished drift run, as the view, the diff documents, decorations and lenses read it. */
export interface DriftRun {
  readonly id: number;
  readonly report: DriftReport;
  readonly at: Date;
  readonly context: string;
}

export function targetKey(t: { kind: string; namespace: string; name: string }): string {
  return `${t.kind}/${t.namespace}/${t.name}`;
}

/** The latest run per target and mode; runs are kept until replaced or cleared. */
export class DriftStore implements vscode.Disposable {
  private readonly runs = new Map<string, DriftRun>();
  private nextId = 1;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  add(report: DriftReport, context: string): DriftRun {
    const run: DriftRun = { id: this.nextId++, report, at: new Date(), context };
    this.runs.set(`${targetKey(report.target)}#${report.mode}`, run);
    this.changed.fire();
    return run;
  }

  all(): DriftRun[] {
    return [...this.runs.values()].sort((a, b) => b.id - a.id);
  }

  byId(id: number): DriftRun | undefined {
    return this.all().find((r) => r.id === id);
  }

  /** Runs of a target, newest first. */
  forTarget(t: { kind: string; namespace: string; name: string }): DriftRun[] {
    const key = targetKey(t);
    return this.all().filter((r) => targetKey(r.report.target) === key);
  }

  clear(): void {
    this.runs.clear();
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
