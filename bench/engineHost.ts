/**
 * One repetition of the extension-host benchmark (engine.bench.ts runs it in fresh processes):
 * this process plays the extension host. It posts to the real engine worker (the esbuild bundle)
 * through `EngineClient`, sending what src/extension/engineService.ts and the adapters send, and
 * measures its own thread (hostProbe.ts) while the engine indexes the repository and while the
 * user types. Prints one JSON line.
 *
 *   node --import tsx --expose-gc bench/engineHost.ts '{"root":…,"worker":…,"ksFile":…,"bigFile":…}'
 */
import * as fs from 'node:fs';
import * as v8 from 'node:v8';
import { EngineClient, workerTransport } from '../src/engine/client';
import type { FromEngine, ToEngine } from '../src/engine/protocol';
import { probe, type Blocking } from './hostProbe';
import { reportAndExit } from './childProcess';

export interface HostArgs {
  root: string;
  worker: string;
  /** A Kustomization (a `dependsOn` name is typed into it). */
  ksFile: string;
  /** A large manifest (typed into at its end). */
  bigFile: string;
}

export interface MessageCost {
  label: string;
  bytes: number;
  /** `structuredClone` of it on this thread: what postMessage costs its receiver (deserialise) and sender (serialise). */
  cloneMs: number;
}

export interface HostResult {
  idle: Blocking;
  index: Blocking;
  typingKs: Blocking;
  typingBig: Blocking;
  indexedFiles: number;
  changes: number;
  publications: number;
  requests: number;
  /** Longest time one received message's handlers (client + listeners) ran. */
  longestHandlerMs: number;
  messages: { count: number; bytes: number; largest: MessageCost[] };
  /** Resident set of this process before the worker started and after the index (the worker's heap is in it). */
  rssBeforeMb: number;
  rssIndexedMb: number;
}

export const KEYSTROKES = 150;
export const KEY_INTERVAL_MS = 40;
export const PAUSE_EVERY = 10;
export const PAUSE_MS = 400;
/** How long VS Code waits after the last keystroke before asking for code actions and links. */
export const QUIET_MS = 250;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function main(args: HostArgs): Promise<HostResult> {
  const ksOriginal = fs.readFileSync(args.ksFile, 'utf8');
  const bigOriginal = fs.readFileSync(args.bigFile, 'utf8');
  const idle = await probe(() => sleep(3000));
  const rssBefore = process.memoryUsage().rss;

  // Every message both ways is kept (by reference) to price it after the phases.
  const received: { label: string; message: FromEngine }[] = [];
  const methods = new Map<number, string>();
  const transport = workerTransport(args.worker);
  let longestHandlerMs = 0;
  const client = new EngineClient({
    ...transport,
    post: (m: ToEngine) => {
      if (m.type === 'request') methods.set(m.id, m.method);
      transport.post(m);
    },
    onMessage: (h) =>
      transport.onMessage((m) => {
        const t = performance.now();
        h(m);
        longestHandlerMs = Math.max(longestHandlerMs, performance.now() - t);
        received.push({ label: m.type === 'response' ? `response ${methods.get(m.id)}` : m.type, message: m });
      }),
  });
  let changes = 0;
  let publications = 0;
  let requests = 0;
  const ask: typeof client.request = (method, params) => {
    requests++;
    return client.request(method, params);
  };
  const diagnostics = new Map<string, unknown>();
  client.onDiagnostics((files) => {
    publications++;
    for (const f of files) diagnostics.set(f.file, f.diagnostics);
  });
  let open = args.ksFile;
  // What the adapters do on a change: the tree re-lists its roots and the expanded cluster, both
  // code lens providers ask for the open file's targets, the graph panel is closed.
  client.onChanged(() => {
    changes++;
    void ask('treeChildren', {}).then((roots) => {
      const cluster = roots.find((r) => r.collapsible !== 'none');
      if (cluster) void ask('treeChildren', { id: cluster.id });
    });
    void ask('fileTargets', { file: open });
    void ask('fileTargets', { file: open });
  });

  const index = await probe(async () => {
    client.open([args.root], { sourceRoots: {} });
    // Features meanwhile answer at once ("still indexing").
    while (!client.ready) {
      await client.query('hover', { file: args.ksFile, position: { line: 0, character: 0 } }, undefined);
      await sleep(10);
    }
  });
  const rssIndexed = process.memoryUsage().rss;
  const indexedFiles = client.status.files;

  /** Keystrokes as onDidChangeTextDocument posts them, with the requests VS Code makes while typing. */
  const type = (file: string, textAt: (i: number) => string, position: (i: number) => { line: number; character: number }) =>
    probe(async () => {
      open = file;
      const before = publications;
      for (let i = 0; i < KEYSTROKES; i++) {
        const text = textAt(i);
        client.buffer(file, text);
        if (i % PAUSE_EVERY === 5) void ask('hover', { file, position: position(i), text });
        // The Git index changing under the editor (dropped by the client).
        if (i % PAUSE_EVERY === 0) client.filesChanged([`${args.root}/.git/index.lock`]);
        if (i % PAUSE_EVERY !== PAUSE_EVERY - 1) {
          await sleep(KEY_INTERVAL_MS);
          continue;
        }
        // A pause: VS Code asks for code actions at the cursor (the light bulb) and for document
        // links once typing rests; the engine's debounce passes and it rebuilds and re-checks.
        await sleep(QUIET_MS);
        void ask('codeActions', { file, range: { start: position(i), end: position(i) }, text });
        void ask('documentLinks', { file, text });
        await sleep(PAUSE_MS - QUIET_MS);
      }
      const start = Date.now();
      while (publications === before && Date.now() - start < 10_000) await sleep(5);
      await sleep(300);
    });

  // Typing a dependsOn name character by character: the name is unknown until complete (a diagnostic comes and goes).
  const typingKs = await type(
    args.ksFile,
    (i) => ksOriginal.replace('spec:\n', `spec:\n  dependsOn:\n    - name: ${'app-499'.slice(0, (i % 7) + 1)}\n`),
    (i) => ({ line: 3, character: 12 + (i % 7) }),
  );
  const bigLines = bigOriginal.split('\n').length;
  const typingBig = await type(
    args.bigFile,
    (i) => `${bigOriginal}# ${'typing a comment at the end of a large file '.repeat(3).slice(0, i % 120)}\n`,
    (i) => ({ line: bigLines - 1, character: 2 + (i % 120) }),
  );
  client.dispose();

  const priced = received.map(({ label, message }) => {
    const bytes = v8.serialize(message).length;
    return { label, bytes, message };
  });
  const largest = [...priced]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5)
    .map(({ label, bytes, message }) => {
      const times: number[] = [];
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        structuredClone(message);
        times.push(performance.now() - t);
      }
      return { label, bytes, cloneMs: times.sort((a, b) => a - b)[1] };
    });
  return {
    idle,
    index,
    typingKs,
    typingBig,
    indexedFiles,
    changes,
    publications,
    requests,
    longestHandlerMs,
    messages: { count: priced.length, bytes: priced.reduce((n, p) => n + p.bytes, 0), largest },
    rssBeforeMb: rssBefore / 2 ** 20,
    rssIndexedMb: rssIndexed / 2 ** 20,
  };
}

if (require.main === module) {
  reportAndExit(main(JSON.parse(process.argv[2]) as HostArgs));
}
