import * as vscode from 'vscode';

/**
 * Read-only documents of one URI scheme whose text a feature computes: drift's live and desired
 * YAML, the review's base and working-tree YAML. Diff editors open them side by side; `refresh`
 * makes the open ones read their text again when the feature's results change.
 */
export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(
    readonly scheme: string,
    private readonly content: (uri: vscode.Uri) => string,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.content(uri);
  }

  refresh(): void {
    for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === this.scheme) this.changed.fire(d.uri);
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
