import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import type { Services } from '../extension';
import { ReadOnlyDocuments } from '../readOnlyDocuments';
import { pickBase } from './basePicker';
import { findObject, REVIEW_SCHEME, reviewDocument, reviewUri, type ObjectKey } from './documents';
import { Review, ReviewStore } from './review';
import { ReviewTreeProvider } from './reviewView';
import { reviewStatusBar } from './statusBar';

export const REVIEW_VIEW_ID = 'gitopsPreview.review';
/** Context key: a review is open (its view title actions and Clear Review show). */
const ACTIVE_CONTEXT_KEY = 'gitopsPreview.reviewActive';

/**
 * GitOps: Review Changes…: the working tree (unsaved edits included) against a Git base, per
 * cluster, producer and object, kept current as files change. The comparison runs in the engine
 * (`changes`); this module asks for it, shows it and opens the diffs.
 */
export function registerReview(context: vscode.ExtensionContext, services: Services): void {
  const client = services.engine.client;
  const store = new ReviewStore();
  const documents = new ReadOnlyDocuments(REVIEW_SCHEME, (uri) => reviewDocument(store, uri));
  const view = vscode.window.createTreeView(REVIEW_VIEW_ID, { treeDataProvider: new ReviewTreeProvider(store), showCollapseAll: true });
  let progress: (() => void) | undefined;
  const update = () => {
    const review = store.current;
    void vscode.commands.executeCommand('setContext', ACTIVE_CONTEXT_KEY, review !== undefined);
    documents.refresh();
    const state = review?.state;
    const answer = review?.answer;
    view.description = answer ? `against ${answer.baseName} · ${answer.report.base.slice(0, 7)}` : undefined;
    if (state?.kind === 'comparing' && !progress) {
      void vscode.window.withProgress({ location: { viewId: REVIEW_VIEW_ID } }, () => new Promise<void>((resolve) => (progress = resolve)));
    } else if (state?.kind !== 'comparing') {
      progress?.();
      progress = undefined;
    }
    view.message =
      state?.kind === 'failed'
        ? `Comparing failed: ${state.message}`
        : state?.kind === 'comparing' && !answer
          ? `Comparing the working tree with ${review!.base ?? 'the default base'}…`
          : answer && answer.report.changes.length === 0
            ? 'No cluster applies anything differently from the base.'
            : undefined;
  };
  context.subscriptions.push(
    store,
    documents,
    view,
    reviewStatusBar(store),
    store.onDidChange(update),
    { dispose: () => progress?.() },
    vscode.commands.registerCommand('gitopsPreview.reviewChanges', () => startReview(client, store)),
    vscode.commands.registerCommand('gitopsPreview.openReviewDiff', (key: ObjectKey) => openDiff(store, key)),
    vscode.commands.registerCommand('gitopsPreview.closeReview', () => store.stop()),
  );
}

async function startReview(client: EngineClient, store: ReviewStore): Promise<void> {
  // The base is built from the repository's Git objects: as much the repository's say as its files.
  if (!vscode.workspace.isTrusted) {
    const manage = 'Manage Workspace Trust';
    const choice = await vscode.window.showWarningMessage('GitOps Preview: Review Changes reads the repository\'s Git objects and builds every cluster at the base: it runs in trusted workspaces only.', manage);
    if (choice === manage) void vscode.commands.executeCommand('workbench.trust.manage');
    return;
  }
  if (!client.ready) {
    void vscode.window.showInformationMessage('GitOps Preview: still indexing the workspace; try again in a moment.');
    return;
  }
  const root = await pickFolder(client);
  if (!root) return;
  const bases = await client.request('changeBases', { root });
  if (!bases.ok) {
    void vscode.window.showWarningMessage(`GitOps Preview: ${bases.error.message}`);
    return;
  }
  const picked = await pickBase(bases.value);
  if (!picked) return;
  store.start(new Review(client, root, picked.base));
  await vscode.commands.executeCommand(`${REVIEW_VIEW_ID}.focus`);
}

/** The folder to review: the one holding Flux objects, or the one picked when there are several. */
async function pickFolder(client: EngineClient): Promise<string | undefined> {
  const roots = client.status.folders.map((f) => f.root);
  if (roots.length <= 1) {
    if (!roots.length) void vscode.window.showWarningMessage('GitOps Preview: no Flux Kustomization or HelmRelease in this workspace.');
    return roots[0];
  }
  const pick = await vscode.window.showQuickPick(
    roots.map((root) => ({ label: root.slice(root.lastIndexOf('/') + 1), description: root, root })),
    { placeHolder: 'Review the changes of which folder?' },
  );
  return pick?.root;
}

async function openDiff(store: ReviewStore, key: ObjectKey): Promise<void> {
  const answer = store.current?.answer;
  const object = findObject(answer, key);
  if (!answer || !object) {
    void vscode.window.showInformationMessage('GitOps Preview: this object no longer differs from the base.');
    return;
  }
  const name = `${object.kind} ${object.namespace ? `${object.namespace}/` : ''}${object.name}`;
  await vscode.commands.executeCommand('vscode.diff', reviewUri(key, 'base'), reviewUri(key, 'working'), `${name}: ${answer.report.base.slice(0, 7)} ↔ working tree`, { preview: true });
}
