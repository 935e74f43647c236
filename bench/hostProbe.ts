/**
 * How long a thread's event loop was blocked, and why: `monitorEventLoopDelay` (1 ms resolution),
 * a 1 ms `setInterval` whose longest gap cross-checks it, and per gap the thread's own CPU time
 * and run-queue wait from Linux's /proc/thread-self/schedstat — so a long gap can be told apart as
 * this thread's own work (JavaScript, GC, deserialising a message) or the scheduler running
 * something else (other threads of the process, other processes).
 */
import * as fs from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export interface Gap {
  /** Wall time between two 1 ms ticks, minus the 1 ms interval. */
  ms: number;
  /** Of which this thread ran on a CPU (its own work). */
  cpuMs: number;
  /** Of which this thread was runnable but waited for a CPU. */
  waitMs: number;
}

export interface Blocking {
  maxMs: number;
  p99Ms: number;
  p50Ms: number;
  /** The 1 ms interval's longest gap (cross-check of maxMs). */
  longestGap: Gap;
  /** The gap with the most own CPU time: the longest this thread blocked itself. */
  mostOwnCpu: Gap;
  /** Longest garbage collection of this thread's heap as V8 reports it (wall time: it includes waiting for a CPU). */
  gcMaxMs: number;
  wallMs: number;
}

const SCHEDSTAT = '/proc/thread-self/schedstat';
const hasSchedstat = (() => {
  try {
    fs.readFileSync(SCHEDSTAT, 'utf8');
    return true;
  } catch {
    return false;
  }
})();

/** [ns on CPU, ns waiting on a run queue] of the calling thread (zeros off Linux). */
function schedstat(): [number, number] {
  if (!hasSchedstat) return [0, 0];
  const [run, wait] = fs.readFileSync(SCHEDSTAT, 'utf8').split(' ');
  return [Number(run), Number(wait)];
}

const none: Gap = { ms: 0, cpuMs: 0, waitMs: 0 };

/** Measures this thread while `work` runs. Garbage from setting up is collected first (needs --expose-gc). */
export async function probe(work: () => Promise<void>): Promise<Blocking> {
  (globalThis as { gc?: () => void }).gc?.();
  const h = monitorEventLoopDelay({ resolution: 1 });
  let gcMaxMs = 0;
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, e.duration);
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  let longestGap = none;
  let mostOwnCpu = none;
  let last = performance.now();
  let lastStat = schedstat();
  const tick = setInterval(() => {
    const now = performance.now();
    const stat = schedstat();
    const ms = now - last - 1;
    if (ms > longestGap.ms || ms > 5) {
      const gap = { ms, cpuMs: (stat[0] - lastStat[0]) / 1e6, waitMs: (stat[1] - lastStat[1]) / 1e6 };
      if (gap.ms > longestGap.ms) longestGap = gap;
      if (gap.cpuMs > mostOwnCpu.cpuMs) mostOwnCpu = gap;
    }
    last = now;
    lastStat = stat;
  }, 1);
  h.enable();
  // Let the probes take their first sample before the work starts (a block at once would go unseen).
  await new Promise((r) => setTimeout(r, 5));
  const t = performance.now();
  await work();
  const wallMs = performance.now() - t;
  // One more turn of the loop, so a block at the very end (or work without any await) is recorded.
  await new Promise((r) => setTimeout(r, 20));
  h.disable();
  clearInterval(tick);
  // GC entries are delivered asynchronously.
  await new Promise((r) => setTimeout(r, 10));
  gcObserver.disconnect();
  return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, p50Ms: h.percentile(50) / 1e6, longestGap, mostOwnCpu, gcMaxMs, wallMs };
}

export { hasSchedstat };
