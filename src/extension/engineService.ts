import * as vscode from 'vscode';
import { EngineClient, workerTransport } from '../engine/client';
import type { EngineStatus, FileDiagnostics, Position, Range } from '../engine/protocol';

export function toPosix(fsPath: string): string {
  return fsPath.split('\\').join('/');
}

/** Workspace folders on disk: each is one repository for the engine. */
function folderRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => toPosix(f.uri.fsPath));
}

/**
 * The editor's one way to the engine (which runs in a worker thread): file events and editor
 * buffers go in, model changes, status and diagnostics come out as VS Code events. Nothing here
 * reads the model or waits for the engine.
 */
export class EngineService implements vscode.Disposable {
  readonly client: EngineClient;
  private readonly changed = new vscode.EventEmitter<void>();
  /** The model changed (edit, file event, live status): views re-query. */
  readonly onDidChange = this.changed.event;
  private readonly statusEmitter = new vscode.EventEmitter<EngineStatus>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  private readonly diagnosticsEmitter = new vscode.EventEmitter<FileDiagnostics[]>();
  readonly onDidPublishDiagnostics = this.diagnosticsEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private watchers: vscode.Disposable[] = [];

  /** `storageDir`: VS Code's storage of this workspace (context.storageUri), where the engine persists builds. */
  constructor(
    workerScript: string,
    output: vscode.OutputChannel,
    private readonly storageDir?: string,
  ) {
    this.client = new EngineClient(workerTransport(workerScript));
    this.client.onChanged(() => this.changed.fire());
    this.client.onStatus((s) => this.statusEmitter.fire(s));
    this.client.onDiagnostics((d) => this.diagnosticsEmitter.fire(d));
    this.client.onLog((m) => output.appendLine(m));
    this.disposables.push(
      this.changed,
      this.statusEmitter,
      this.diagnosticsEmitter,
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme !== 'file') return;
        // The first keystroke in a clean document arrives with isDirty still false (the dirty flag
        // follows in a second event without changes): an event with changes always carries text.
        // An event without changes on a clean document (save, revert) hands the file back to disk.
        const text = e.document.isDirty || e.contentChanges.length > 0 ? e.document.getText() : undefined;
        this.client.buffer(toPosix(e.document.uri.fsPath), text);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === 'file') this.client.buffer(toPosix(d.uri.fsPath), undefined);
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.open()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('gitopsPreview.sourceRoots') || (this.redHatYaml && e.affectsConfiguration('yaml.schemas'))) this.open();
      }),
      vscode.extensions.onDidChange(() => {
        if (redHatYamlEnabled() !== this.redHatYaml) this.open();
      }),
    );
    this.open();
  }

  get ready(): boolean {
    return this.client.ready;
  }

  /** Whether the Red Hat YAML extension was enabled at the last open (see EngineSettings.redHatYaml). */
  private redHatYaml = false;

  /** (Re)opens every workspace folder; the first index runs in the worker. */
  private open(): void {
    for (const w of this.watchers) w.dispose();
    const roots = folderRoots();
    this.watchers = roots.map((root) => {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '**/*'));
      const onFile = (uri: vscode.Uri) => this.client.filesChanged([toPosix(uri.fsPath)]);
      return vscode.Disposable.from(watcher, watcher.onDidCreate(onFile), watcher.onDidChange(onFile), watcher.onDidDelete(onFile));
    });
    this.redHatYaml = redHatYamlEnabled();
    this.client.open(roots, {
      sourceRoots: sourceRootsSetting(),
      redHatYaml: this.redHatYaml,
      ...(this.redHatYaml ? { redHatYamlSchemas: redHatSchemasSetting() } : {}),
      ...(this.storageDir ? { storageDir: toPosix(this.storageDir) } : {}),
    });
    // Buffers already open and modified before activation.
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === 'file' && doc.isDirty) this.client.buffer(toPosix(doc.uri.fsPath), doc.getText());
    }
  }

  /** Re-reads every folder (catches changes a file watcher missed). */
  reload(): void {
    this.client.reload();
  }

  dispose(): void {
    for (const w of this.watchers) w.dispose();
    for (const d of this.disposables) d.dispose();
    this.client.dispose();
  }
}

/**
 * VS Code's Position and Range keep their values in private fields behind getters, which a
 * structured clone (postMessage to the worker) drops: send plain copies.
 */
export function plainPosition(p: { line: number; character: number }): Position {
  return { line: p.line, character: p.character };
}

export function plainRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }): Range {
  return { start: plainPosition(r.start), end: plainPosition(r.end) };
}

/** `gitopsPreview.sourceRoots`: `Kind/namespace/name` → workspace folder (string values only). */
function sourceRootsSetting(): Record<string, string> {
  const value = vscode.workspace.getConfiguration('gitopsPreview').get<unknown>('sourceRoots', {});
  const out: Record<string, string> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** Red Hat YAML's `yaml.schemas` setting, plain data (the engine reads it: core/schema/redHatSchemas.ts). */
function redHatSchemasSetting(): Record<string, string[] | string> {
  const value = vscode.workspace.getConfiguration('yaml').get<unknown>('schemas');
  const out: Record<string, string[] | string> = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((g): g is string => typeof g === 'string');
  }
  return out;
}

/** The Red Hat YAML extension is installed and enabled (getExtension sees only enabled ones). */
function redHatYamlEnabled(): boolean {
  return vscode.extensions.getExtension('redhat.vscode-yaml') !== undefined;
}
