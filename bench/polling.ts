/**
 * What a wait for `running` costs the service and how late it notices: for deploys taking
 * 100 ms, 1 s and 5 s on the reference server (in its own process), K workloads are deployed
 * at once and each is waited for with `workloads.waitForStatus`. Printed per delay: GET state
 * requests per wait, and the detection latency (the waiter's return minus the service's
 * `updated_at` of the running state; median and max). Two pollers side by side, same run: the
 * client's waiter, which polls when the service's Retry-After says, and the same waiter
 * ignoring that hint (backoff only: 100 ms growing by half to 2 s).
 * Run: node bench/polling.ts [--k 20]
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CwsClient } from "../client/index.ts";
import { pollUntil } from "../client/waiters.ts";

const at = process.argv.indexOf("--k");
const K = Number((at > 0 && process.argv[at + 1]) || process.env.BENCH_POLLING_K || 20);
const DELAYS = [100, 1000, 5000];

async function server(delayMs: number) {
  const proc = fork(fileURLToPath(new URL("./provider-server.ts", import.meta.url)), [String(delayMs)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { baseUrl } = await new Promise<{ baseUrl: string }>((ok) =>
    proc.once("message", (m) => ok(m as never)),
  );
  return {
    baseUrl,
    counts: () =>
      new Promise<Record<string, number>>((ok) => {
        proc.once("message", (m) => ok((m as { counts: Record<string, number> }).counts));
        proc.send("counts");
      }),
    stop: () => proc.send("exit"),
  };
}

type Mode = "Retry-After" | "backoff only";

async function measure(delayMs: number, mode: Mode) {
  const s = await server(delayMs);
  const client = new CwsClient({ baseUrl: s.baseUrl, org: "demo", token: "demo-token" });
  try {
    const uids = await Promise.all(
      Array.from({ length: K }, async (_, i) => {
        const w = await client.workloads.create({
          type: "RENTAL",
          name: `poll-${i}`,
          image: "nginx:1.27",
          resource_name: "cpu-rental-small",
        });
        return w.uid;
      }),
    );
    await s.counts();
    const latencies = await Promise.all(
      uids.map(async (uid) => {
        await client.workloads.deploy(uid);
        const state =
          mode === "Retry-After"
            ? await client.workloads.waitForStatus(uid, "running", { timeoutMs: 60_000 })
            : await pollUntil(
                {
                  kind: "workload",
                  uid,
                  target: ["running"],
                  // no onRetryAfter: this mode ignores the service's hints
                  read: ({ signal, timeoutMs }) => client.workloads.state(uid, { signal, timeoutMs }),
                  readTimeoutMs: Infinity,
                  check: () => {},
                },
                { timeoutMs: 60_000 },
              );
        return Date.now() - Date.parse(state.updated_at!);
      }),
    );
    const counts = await s.counts();
    const polls = counts["GET /workloads/{uid}/state"] ?? 0;
    latencies.sort((a, b) => a - b);
    return { polls: polls / K, median: latencies[Math.floor(K / 2)]!, max: latencies[K - 1]! };
  } finally {
    await client.close();
    s.stop();
  }
}

console.log(`\nWaiting for running: ${K} workloads deployed at once per row, server in its own process\n`);
console.log(`| deploy takes | poller | GET state per wait | detection latency median | max |`);
console.log(`|---:|---|---:|---:|---:|`);
for (const d of DELAYS) {
  for (const mode of ["backoff only", "Retry-After"] as Mode[]) {
    const r = await measure(d, mode);
    console.log(`| ${d} ms | ${mode} | ${r.polls.toFixed(1)} | ${r.median} ms | ${r.max} ms |`);
  }
}
