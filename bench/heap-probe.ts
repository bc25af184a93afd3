/**
 * Preloaded into a provider process by a bench (`NODE_OPTIONS="--expose-gc --import <this file>"`,
 * with CWS_BENCH_HEAP_DIR set): on SIGUSR2, and when the process ends (SIGINT or SIGTERM, as the
 * Pulumi engine ends its plugins; `process.exit(0)`, as the OpenTofu provider ends on Shutdown;
 * or its `exit` event), it measures the live heap and appends one JSON line to
 * `<CWS_BENCH_HEAP_DIR>/<pid>.jsonl`: `{ at, why, heapUsed, heapTotal, external, arrayBuffers,
 * rss, spaces }` (bytes; `at` in ms since the epoch). Then the process ends as it would have.
 *
 * The live heap is `heapUsed` after full collections with the finalizers of the collected objects
 * run in between: a full GC, a turn of the event loop (V8 runs FinalizationRegistry callbacks in a
 * task of their own; Node's `AbortSignal.any` registers each signal it combines, and the
 * registrations of signals that just died are only dropped by those callbacks), a full GC again.
 * Only the `exit` event, which cannot wait, measures after one collection.
 *
 * With CWS_BENCH_HEAP_SNAPSHOTS set to a folder, each measurement also writes a heap snapshot
 * there (`<pid>-<at>-<why>.heapsnapshot`), to see what the heap holds. Nothing happens when
 * CWS_BENCH_HEAP_DIR is unset or `gc` is not exposed.
 */
import { appendFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";

/** The probe's measurement, as a line of `<pid>.jsonl`. */
export interface HeapSample {
  at: number;
  why: string;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  rss: number;
  /** Per V8 heap space: what is used of it and what V8 holds for it (`[used, size]`). */
  spaces: Record<string, [number, number]>;
}

const dir = process.env.CWS_BENCH_HEAP_DIR;
const gc = (globalThis as { gc?: () => void }).gc;

if (dir && gc) {
  const file = join(dir, `${process.pid}.jsonl`);
  const snapshots = process.env.CWS_BENCH_HEAP_SNAPSHOTS;
  /** Set once the process is ending: it is measured once. */
  let ending = false;

  const record = (why: string) => {
    const m = process.memoryUsage();
    const line: HeapSample = {
      at: Date.now(),
      why,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      rss: m.rss,
      spaces: Object.fromEntries(
        getHeapSpaceStatistics().map((x) => [x.space_name, [x.space_used_size, x.space_size]]),
      ),
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
      if (snapshots) {
        const name = join(snapshots, `${process.pid}-${line.at}-${why}.heapsnapshot`);
        renameSync(writeHeapSnapshot(`${name}.partial`), name);
      }
    } catch {
      // The bench removed its folder: nothing to report to.
    }
  };
  const measure = async (why: string) => {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    record(why);
  };

  process.on("SIGUSR2", () => void measure("signal"));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = () => {
      process.removeListener(signal, onSignal);
      if (ending) return;
      ending = true;
      void measure(signal).then(() => {
        // No other listener: the signal ends the process, as it would have without this one.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    };
    process.on(signal, onSignal);
  }
  const exit = process.exit.bind(process);
  // A failing exit goes at once: only the ordinary end of a provider is measured this way.
  process.exit = ((code?: number | string | null) => {
    if (code !== undefined && code !== 0) return exit(code);
    if (ending) return undefined as never;
    ending = true;
    void measure("exit").then(() => exit(code));
    return undefined as never;
  }) as typeof process.exit;
  process.on("exit", () => {
    if (ending) return;
    ending = true;
    gc();
    record("exit event");
  });
}
