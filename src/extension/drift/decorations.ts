import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import type { LiveValueMark } from '../../engine/protocol';
import { toPosix } from '../engineService';
import type { DriftStore } from './store';

/** After a drift run: the live value, faint, at the end of each drifted line (`replicas: 3   live: 1`). */
export class LiveValueDecorations implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic', margin: '0 0 0 2em' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly disposables: vscode.Disposable[] = [];
  private marks: LiveValueMark[] = [];

  constructor(
    private readonly store: DriftStore,
    private readonly engine: EngineClient,
    onDidChangeModel: vscode.Event<void>,
  ) {
    this.disposables.push(
      this.type,
      store.onDidChange(() => void this.recompute()),
      onDidChangeModel(() => void this.recompute()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.paint()),
    );
  }

  /** Marks follow the current text: the engine locates each drifted field again after an edit. */
  private async recompute(): Promise<void> {
    const reports = this.store.all().map((r) => r.report);
    this.marks = reports.length ? await this.engine.query('liveValueMarks', { reports }, []) : [];
    this.paint();
  }

  private paint(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== 'file') continue;
      const path = toPosix(editor.document.uri.fsPath);
      const options: vscode.DecorationOptions[] = this.marks
        .filter((m) => m.file === path && m.line < editor.document.lineCount)
        .map((m) => {
          const end = editor.document.lineAt(m.line).range.end;
          return {
            range: new vscode.Range(end, end),
            hoverMessage: `${m.subject}: the cluster has a different value (${m.text})`,
            renderOptions: { after: { contentText: m.text } },
          };
        });
      editor.setDecorations(this.type, options);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
