import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import type { ChangesAnswer } from '../../engine/protocol';

/** Quiet time after the engine's last model change before comparing again (edits come in bursts). */
export const REVIEW_DEBOUNCE_MS = 500;

export type ReviewState =
  | { kind: 'comparing'; previous?: ChangesAnswer }
  | { kind: 'ready'; answer: ChangesAnswer }
  | { kind: 'failed'; message: string; previous?: ChangesAnswer };

/**
 * One folder compared with one base, compared again whenever the engine's model changes, so every
 * edit, saved or not, shows as the engine sees it. The engine keeps the base side per commit: a
 * comparison after an edit builds the working tree's side only. One comparison runs at a time; a
 * change meanwhile starts one more after it.
 */
export class Review implements vscode.Disposable {
  private current: ReviewState = { kind: 'comparing' };
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private again = false;
  private disposed = false;
  /** The engine's model version the shown answer was asked at, and the latest it announced. */
  private askedAt = -1;
  private latest: number;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly client: EngineClient,
    readonly root: string,
    /** A ref or commit; undefined: the engine's default (the merge-base with the upstream). */
    readonly base: string | undefined,
  ) {
    this.latest = client.status.version;
    this.unsubscribe = client.onChanged((version) => {
      this.latest = version;
      // Live status updates announce the same version: nothing to compare again.
      if (version !== this.askedAt) this.schedule();
    });
    void this.compare();
  }

  get state(): ReviewState {
    return this.current;
  }

  /** The latest answer, also while the next comparison runs or after it failed. */
  get answer(): ChangesAnswer | undefined {
    return this.current.kind === 'ready' ? this.current.answer : this.current.previous;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.compare();
    }, REVIEW_DEBOUNCE_MS);
  }

  async compare(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        this.askedAt = this.latest;
        this.set({ kind: 'comparing', previous: this.answer });
        let next: ReviewState;
        try {
          const r = await this.client.request('changes', { root: this.root, ...(this.base === undefined ? {} : { base: this.base }), ...fetchCharts() });
          next = r.ok ? { kind: 'ready', answer: r.value } : { kind: 'failed', message: r.error.message, previous: this.answer };
        } catch (err) {
          next = { kind: 'failed', message: (err as Error).message, previous: this.answer };
        }
        if (this.disposed) return;
        this.set(next);
      } while (this.again);
    } finally {
      this.running = false;
    }
  }

  private set(state: ReviewState): void {
    this.current = state;
    this.changed.fire();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe();
    this.changed.dispose();
  }
}

/** The window's one review (a new one replaces it); views, documents and the status bar follow it. */
export class ReviewStore implements vscode.Disposable {
  private review: Review | undefined;
  private listener: vscode.Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  get current(): Review | undefined {
    return this.review;
  }

  start(review: Review): void {
    this.stop();
    this.review = review;
    this.listener = review.onDidChange(() => this.changed.fire());
    this.changed.fire();
  }

  stop(): void {
    this.listener?.dispose();
    this.review?.dispose();
    this.review = undefined;
    this.changed.fire();
  }

  dispose(): void {
    this.stop();
    this.changed.dispose();
  }
}

/** Charts not at hand are fetched for the comparison, as Show Drift fetches them: in a trusted workspace, unless offline. */
function fetchCharts(): { fetchCharts?: Record<string, never> } {
  const offline = vscode.workspace.getConfiguration('gitopsPreview').get<boolean>('charts.offline') === true;
  return vscode.workspace.isTrusted && !offline ? { fetchCharts: {} } : {};
}
