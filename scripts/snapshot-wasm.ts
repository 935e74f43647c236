/**
 * Makes a module of wasm/ ready for snapshots (and gives it the host's default memory maximum) and
 * takes its snapshot (src/engine/wasm/snapshot.ts):
 * an instance is initialised and runs the set-up operations named, as the engine's worker would,
 * and its memory and globals are written beside the module. scripts/build-wasm.sh runs it.
 *
 *   node --import tsx scripts/snapshot-wasm.ts <built.wasm> <out.wasm> <out.snapshot> [operation...]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withMemoryMaximum } from '../src/engine/wasm/binary';
import { DEFAULT_MAX_MEMORY_BYTES } from '../src/engine/wasm/host';
import { callInstance, encodeRequest, type RequestExports } from '../src/engine/wasm/protocol';
import { INSTANCE_WASI, snapshotReady, takeSnapshot } from '../src/engine/wasm/snapshot';
import { Wasi } from '../src/engine/wasm/wasi';

async function main(): Promise<void> {
  const [input, outModule, outSnapshot, ...ops] = process.argv.slice(2);
  if (!input || !outModule || !outSnapshot) throw new Error('usage: snapshot-wasm.ts <built.wasm> <out.wasm> <out.snapshot> [operation...]');
  // With the host's default memory maximum already, so the host need not copy the image to set it.
  const image = snapshotReady(withMemoryMaximum(fs.readFileSync(input), DEFAULT_MAX_MEMORY_BYTES));
  const module = await WebAssembly.compile(image);
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-wasm-')), 'log');
  const logFd = fs.openSync(logFile, 'a+');
  const wasi = new Wasi({ ...INSTANCE_WASI, outputFd: logFd });
  const instance = await WebAssembly.instantiate(module, wasi.imports());
  wasi.initialize(instance);
  const e = instance.exports as unknown as RequestExports;
  for (const op of ops) {
    const request = encodeRequest(op, {}, []);
    const answer = JSON.parse(callInstance(e, request)) as { ok: boolean; error?: string };
    if (!answer.ok) throw new Error(`${op} failed: ${answer.error}\n${fs.readFileSync(logFile, 'utf8')}`);
  }
  fs.closeSync(logFd);
  fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  const snapshot = takeSnapshot(image, module, instance, wasi);
  fs.writeFileSync(`${outSnapshot}.tmp`, snapshot);
  fs.writeFileSync(`${outModule}.tmp`, image);
  fs.renameSync(`${outSnapshot}.tmp`, outSnapshot);
  fs.renameSync(`${outModule}.tmp`, outModule);
}

main().catch((err: unknown) => {
  console.error(`snapshot-wasm.ts: ${(err as Error).message}`);
  process.exit(1);
});
