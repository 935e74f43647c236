/**
 * Drives the VS Code workbench that code-server serves, through Debian's headless Chromium and
 * playwright-core (no browser download). Scenarios use the UI as a person does: the command
 * palette (F1), Go to Line, the keyboard in the editor, and read what the workbench renders
 * (DOM classes of VS Code 1.100: .monaco-list-row, .markers-panel, .quick-input-widget, ...).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { e2eEnv, type E2eEnv } from './env';

/** Flags the issue asks for: headless, no sandbox (root in CI), nothing phoning home. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export class Workbench {
  private constructor(
    readonly env: E2eEnv,
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly profileDir: string,
  ) {
    // The workbench's own warnings and errors (a workspace file it could not read, a failed
    // contribution): a failed wait prints them, as CI keeps no browser console.
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') this.consoleLines.push(`${m.type()}: ${m.text().slice(0, 400)} (${m.location().url})`);
    });
  }

  private readonly consoleLines: string[] = [];

  /**
   * A fresh Chromium profile on code-server's workspace folder (or on another folder, or on a
   * `.code-workspace` file for multi-root scenarios); resolves once the workbench is up.
   */
  static async open(opts: { workspaceFile?: string; folder?: string } = {}): Promise<Workbench> {
    const env = e2eEnv();
    // Each scenario starts with no unsaved editors. VS Code backs up a dirty buffer a moment after
    // each keystroke and drops the backup on save, but a window closed right after saving can
    // leave the backup behind (seen in CI: 02's "infra-configz", saved away, came back as a dirty
    // apps.yaml in 06's window). A new window restores every backup of its folder.
    fs.rmSync(path.join(env.userData, 'User', 'Backups'), { recursive: true, force: true });
    const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-chromium-'));
    const context = await chromium.launchPersistentContext(profileDir, {
      executablePath: env.chromium,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
      deviceScaleFactor: 1,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const wb = new Workbench(env, context, page, profileDir);
    const target = opts.workspaceFile ? `workspace=${encodeURIComponent(opts.workspaceFile)}` : `folder=${encodeURIComponent(opts.folder ?? env.workspace)}`;
    await page.goto(`${env.url}/?${target}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.part.activitybar').waitFor({ timeout: 60_000 });
    // Contributed view containers appear once the remote extension host has scanned the
    // extensions: from then on the extension's commands and views exist.
    await wb.activityBarItem('GitOps Preview').waitFor({ timeout: 120_000 });
    if (opts.workspaceFile) await wb.untilWorkspaceFolders(opts.workspaceFile);
    return wb;
  }

  /**
   * Waits until the window lists the folders of its `.code-workspace` file. VS Code in a browser
   * reads a remote workspace file from a configuration cache first (empty in a fresh profile) and
   * the file itself once the remote file system is up; now and then (seen in CI, and locally
   * about one first open in three) that read comes back without folders and the window stays
   * empty, its extension host with no folder at all. The file is watched: writing it again, as
   * an editor saving it would, makes VS Code read it again. Anything else is an error here, not a
   * wait that a scenario times out on later.
   */
  private async untilWorkspaceFolders(workspaceFile: string): Promise<void> {
    const folders = (JSON.parse(fs.readFileSync(workspaceFile, 'utf8')) as { folders: { path: string }[] }).folders.map((f) => path.basename(f.path));
    await this.command('View: Show Explorer');
    const listed = () =>
      this.page.locator('.explorer-folders-view .monaco-list-row[aria-level="1"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    const all = async () => {
      const rows = await listed();
      return folders.every((f) => rows.includes(f)) ? rows : undefined;
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.until(`the workspace folders ${folders.join(', ')} in the Explorer`, all, 15_000);
        return;
      } catch (err) {
        if (attempt === 3) throw new Error(`${(err as Error).message}; the Explorer lists ${JSON.stringify(await listed())}`);
        console.log(`e2e: the window opened ${path.basename(workspaceFile)} without its folders (attempt ${attempt}); writing the file again`);
        fs.writeFileSync(workspaceFile, fs.readFileSync(workspaceFile));
      }
    }
  }

  /**
   * Leaves the workbench as a person closing the tab does: its unload ends the remote connection
   * gracefully, so code-server disposes this window's extension host (and the extension's engine)
   * at once. Killing the browser instead only drops the socket, and code-server keeps the host for
   * a reconnection for minutes: every later scenario then shares the machine with all of them.
   */
  async close(): Promise<void> {
    await this.page.goto('about:blank', { timeout: 10_000 }).catch(() => undefined);
    await this.context.close().catch(() => undefined);
    fs.rmSync(this.profileDir, { recursive: true, force: true });
  }

  activityBarItem(title: string): Locator {
    return this.page.locator(`.part.activitybar .action-item a[aria-label^="${title}"]`).first();
  }

  /** Drags the side bar's edge so it is `width` pixels wide (long tree labels stay readable). */
  async widenSideBar(width: number): Promise<void> {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box) return;
    const y = box.y + box.height / 2;
    await this.page.mouse.move(box.x + box.width - 1, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 5 });
    await this.page.mouse.up();
  }

  /** Saves a PNG under the artefacts folder and returns its path. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(this.env.artifacts, { recursive: true });
    const file = path.join(this.env.artifacts, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** Runs a command palette entry by its title (as shown in the palette, e.g. "GitOps Preview: Refresh"). */
  async command(title: string, opts: { timeoutMs?: number } = {}): Promise<void> {
    const input = await this.openQuickInput('F1');
    await input.fill(`>${title}`);
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor({ timeout: opts.timeoutMs ?? 20_000 });
    // Highlight matches the typed text: pick the first row whose label is exactly the title.
    await this.page.keyboard.press('Enter');
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
  }

  private async openQuickInput(key: string): Promise<Locator> {
    await this.dismissNotifications();
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.page.keyboard.press(key);
      try {
        await input.waitFor({ state: 'visible', timeout: 5_000 });
        return input;
      } catch {
        await this.page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } }).catch(() => undefined);
      }
    }
    throw new Error(`the quick input did not open on ${key}`);
  }

  /** Opens a workspace file by its path relative to the workspace folder. */
  async openFile(rel: string): Promise<void> {
    const input = await this.openQuickInput('F1');
    await input.fill(rel);
    const base = path.basename(rel);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: base }).first().waitFor({ timeout: 20_000 });
    await this.page.keyboard.press('Enter');
    await this.page.locator(`.tabs-container .tab.active`, { hasText: base }).waitFor({ timeout: 20_000 });
    await this.editor().waitFor({ timeout: 20_000 });
  }

  /** The active text editor's Monaco instance. */
  editor(): Locator {
    return this.page.locator('.editor-group-container.active .monaco-editor').first();
  }

  /** Moves the cursor to the end of a 1-based line of the active editor (Go to Line). */
  async goToLineEnd(line: number): Promise<void> {
    await this.editor().locator('.view-lines').click();
    const input = await this.openQuickInput('Control+G');
    await input.fill(`:${line}`);
    await this.page.keyboard.press('Enter');
    await this.page.keyboard.press('End');
  }

  /** Text of the active editor's visible lines, top to bottom. */
  async editorText(): Promise<string> {
    const lines = this.editor().locator('.view-lines .view-line');
    const items = await lines.evaluateAll((els) =>
      els.map((e) => ({ top: parseFloat((e as unknown as { style: { top: string } }).style.top || '0'), text: (e.textContent ?? '').replace(/\u00a0/g, ' ') })),
    );
    return items.sort((a, b) => a.top - b.top).map((i) => i.text).join('\n');
  }

  /** Rows of the tree view with the given id (contributed view), as their accessible labels. */
  /**
   * What a failed wait needs to be understood from CI's output alone: the view's message (e.g.
   * "Indexing the workspace…"), and the newest extension host's log and the extension's output
   * channel (code-server writes both under the user-data folder).
   */
  async diagnose(viewTitle: string): Promise<string> {
    const pane = this.viewPane(viewTitle);
    const message = await pane.locator('.message, .welcome-view-content').allTextContents().catch(() => []);
    const logs = path.join(this.env.userData, 'logs');
    const files = (dir: string): string[] =>
      fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)])) : [];
    const hosts = files(logs).filter((f) => /exthost\d+[/\\]remoteexthost\.log$/.test(f));
    const newest = hosts.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs).at(-1);
    const parts = [`view message: ${JSON.stringify(message)}`, `browser console (last 15 warnings and errors):\n${this.consoleLines.slice(-15).join('\n')}`];
    if (newest) {
      const dir = path.dirname(newest);
      parts.push(`${newest}:\n${fs.readFileSync(newest, 'utf8').split('\n').slice(-60).join('\n')}`);
      for (const f of files(dir).filter((f) => f.endsWith('GitOps Preview.log'))) parts.push(`${f}:\n${fs.readFileSync(f, 'utf8').slice(-4000)}`);
    }
    const agent = files(logs).filter((f) => f.endsWith('remoteagent.log')).at(-1);
    if (agent) parts.push(`${agent}:\n${fs.readFileSync(agent, 'utf8').split('\n').slice(-30).join('\n')}`);
    return parts.join('\n');
  }

  async treeRows(viewTitle: string): Promise<string[]> {
    const pane = this.viewPane(viewTitle);
    return pane.locator('.monaco-list-row').evaluateAll((els) =>
      els.map((e) => (e.getAttribute('aria-label') ?? e.textContent ?? '').trim()),
    );
  }

  /**
   * The tree's rows once they stop moving: labels, expansion and positions the same for `quietMs`.
   * Children load asynchronously, so a row found by text can still be pushed down by rows expanding
   * above it; a pointer aimed at it before then lands on another row.
   */
  async settledTreeRows(viewTitle: string, quietMs = 1_500, timeoutMs = 30_000): Promise<string[]> {
    const pane = this.viewPane(viewTitle);
    const snapshot = () =>
      pane.locator('.monaco-list-row').evaluateAll((els) =>
        els.map((e) => `${e.getAttribute('aria-expanded') ?? '-'} ${e.getBoundingClientRect().top} ${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim()}`),
      );
    let last = await snapshot();
    let since = Date.now();
    return this.until(`the ${viewTitle} tree to stay still for ${quietMs} ms`, async () => {
      const now = await snapshot();
      if (now.join('\n') !== last.join('\n')) {
        last = now;
        since = Date.now();
        return undefined;
      }
      return Date.now() - since >= quietMs ? now.map((r) => r.replace(/^\S+ \S+ /, '')) : undefined;
    }, timeoutMs);
  }

  viewPane(viewTitle: string): Locator {
    return this.page.locator('.pane', { has: this.page.locator('.pane-header', { hasText: viewTitle }) }).first();
  }

  /**
   * Moves the keyboard focus in a list widget (code action menu, quick pick) to the row with the
   * given label and presses Enter; the pointer is blocked over these menus, the keyboard is not.
   */
  async chooseFocusedRow(container: string, label: string): Promise<void> {
    const rows = this.page.locator(`${container} .monaco-list-row`);
    const n = await rows.count();
    for (let i = 0; i <= n; i++) {
      const focused = await this.page.locator(`${container} .monaco-list-row.focused`).first().getAttribute('aria-label').catch(() => null);
      if (focused?.includes(label)) {
        await this.page.keyboard.press('Enter');
        return;
      }
      await this.page.keyboard.press('ArrowDown');
    }
    throw new Error(`no row "${label}" in ${container}`);
  }

  /** Rows of the Problems panel (opens it first). */
  async problems(): Promise<string[]> {
    await this.command('View: Focus Problems (Errors, Warnings, Infos)').catch(async () => this.command('Problems: Focus on Problems View'));
    const panel = this.page.locator('.markers-panel');
    await panel.waitFor({ timeout: 10_000 });
    return panel.locator('.monaco-list-row').evaluateAll((els) =>
      els.map((e) => (e.getAttribute('aria-label') ?? e.textContent ?? '').trim()),
    );
  }

  /** Polls until `check` returns a value other than undefined; throws with `what` after timeoutMs. */
  async until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const v = await check();
        if (v !== undefined) return v;
      } catch (err) {
        last = err;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${what}${last ? `: ${last instanceof Error ? last.message : String(last)}` : ''}`);
      }
      await this.page.waitForTimeout(100);
    }
  }

  /** Closes toasts that would cover what a screenshot should show. */
  async dismissNotifications(): Promise<void> {
    const toasts = this.page.locator('.notification-toast .codicon-notifications-clear, .notification-toast .codicon-close');
    const n = await toasts.count();
    for (let i = n - 1; i >= 0; i--) await toasts.nth(i).click({ timeout: 1_000 }).catch(() => undefined);
  }

  /** Text of the visible notifications toasts. */
  async notifications(): Promise<string[]> {
    return this.page.locator('.notification-toast .notification-list-item-message').allTextContents();
  }
}
