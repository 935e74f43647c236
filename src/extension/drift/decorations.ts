import * as vscode from 'vscode';
import { liveValueMarks } from '../../core/drift';
import type { RepoService } from '../repoService';
import { toPosix } from '../repoService';
import type { DriftStore } from './store';

/** After a drift run: the live value, faint, at the end of each drifted line (`replicas: 3   live: 1`). */
export class LiveValueDecorations implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic', margin: '0 0 0 2em' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly store: DriftStore,
    private readonly repo: RepoService,
  ) {
    this.disposables.push(
      this.type,
      store.onDidChange(() => this.refresh()),
      repo.onDidChangeModel(() => this.refresh()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
    );
  }

  refresh(): void {
    const files = this.repo.repo.workspace.files;
    const marks = liveValueMarks(
      this.store.all().map((r) => r.report),
      (p) => files.get(p),
    );
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== 'file') continue;
      const path = toPosix(editor.document.uri.fsPath);
      const options: vscode.DecorationOptions[] = marks
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
