import * as vscode from 'vscode';
import type { ChangesReport } from '../../core/changes/types';
import { summaryLine } from '../../core/changes/format';
import type { ReviewStore } from './review';

/** `3 clusters, 12 objects changed`: the review at a glance. */
export function reviewSummary(r: ChangesReport): string {
  const clusters = new Set(r.changes.map((c) => c.cluster)).size;
  const objects = r.changes.reduce((n, p) => n + p.objects.length, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(clusters, 'cluster')}, ${plural(objects, 'object')} changed`;
}

/** The review's summary in the status bar while a review is open; a click shows the Review view. */
export function reviewStatusBar(store: ReviewStore): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('gitopsPreview.review', vscode.StatusBarAlignment.Left, 49);
  item.name = 'GitOps Preview: Review';
  item.command = 'gitopsPreview.review.focus';
  const render = () => {
    const review = store.current;
    if (!review) {
      item.hide();
      return;
    }
    const state = review.state;
    const answer = review.answer;
    const against = answer ? `${answer.baseName} (${answer.report.base.slice(0, 7)})` : (review.base ?? 'the default base');
    if (state.kind === 'failed') {
      item.text = '$(warning) Review: failed';
      item.tooltip = `Comparing with ${against} failed: ${state.message}`;
    } else if (state.kind === 'comparing' && !answer) {
      item.text = '$(sync~spin) Review: comparing…';
      item.tooltip = `Comparing the working tree with ${against}`;
    } else {
      item.text = `${state.kind === 'comparing' ? '$(sync~spin)' : '$(git-compare)'} Review: ${reviewSummary(answer!.report)}`;
      item.tooltip = `Against ${against}: ${summaryLine(answer!.report)}`;
    }
    item.show();
  };
  render();
  return vscode.Disposable.from(item, store.onDidChange(render));
}
