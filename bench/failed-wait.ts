/**
 * The time from a workload's failure to the waiter's error, with the diagnosis (the last events and
 * log lines read after the failure) and without it (`diagnose: false`, the error as it was before
 * the diagnosis), same run, turns interleaved: for each staged failure (exit, crash_loop) K
 * workloads fail one after the other on the reference server (in this process) and the time from
 * the failing status change (its event's created_at) to the rejection is taken. Also the time from
 * the diagnosis's start to its end when the service answers nothing (reads delayed past the 2 s
 * bound). Printed: median and max per mode.
 * Run: node bench/failed-wait.ts [--k 20]
 */
import { CwsClient, type CwsWaitError } from "../client/index.ts";
import { startServer } from "../server/index.ts";
import { median } from "./median.ts";

const at = process.argv.indexOf("--k");
const K = Number((at > 0 && process.argv[at + 1]) || process.env.BENCH_FAILED_WAIT_K || 20);

const ADMIN_TOKEN = "bench-admin-token";
const server = await startServer({ port: 0, provisionDelayMs: 50, adminToken: ADMIN_TOKEN });
const adminUrl = server.adminUrl;
const admin = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
};
const client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: "demo-token" });

let seq = 0;
/** ms from the failure (the error event's created_at) to the waiter's rejection. */
async function once(failure: string, diagnose: boolean): Promise<number> {
  const name = `fw-${++seq}`;
  await admin("POST", "/orgs/demo/provisioning", { name, failure, delay_ms: 200 });
  const w = await client.workloads.create({
    type: "RENTAL",
    name,
    image: "nginx:1.27",
    resource_name: "cpu-rental-small",
  });
  await client.workloads.deploy(w.uid);
  const failed = await client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 30_000, diagnose }).then(
    () => {
      throw new Error(`${name} came up`);
    },
    (e: CwsWaitError) => e,
  );
  const end = Date.now();
  if (diagnose && !failed.diagnosis?.events.length) throw new Error(`${name}: no diagnosis`);
  const events = (await client.workloads.events(w.uid)).items;
  const error = events.findLast((e) => e.new_status === "error")!;
  await client.workloads.delete(w.uid);
  return end - Date.parse(error.created_at);
}

const fmt = (xs: number[]) => `median ${median(xs)} ms, max ${Math.max(...xs)} ms`;
try {
  for (const failure of ["exit", "crash_loop"]) {
    const without: number[] = [];
    const withDiagnosis: number[] = [];
    for (let i = 0; i < K; i++) {
      without.push(await once(failure, false));
      withDiagnosis.push(await once(failure, true));
    }
    console.log(`${failure}: failure → error without the diagnosis: ${fmt(without)} (K=${K})`);
    console.log(`${failure}: failure → error with the diagnosis:    ${fmt(withDiagnosis)} (K=${K})`);
  }
  // The bound: the service does not answer the diagnosis's reads.
  const name = `fw-${++seq}`;
  await admin("POST", "/orgs/demo/provisioning", { name, failure: "exit", delay_ms: 200 });
  const w = await client.workloads.create({
    type: "RENTAL",
    name,
    image: "nginx:1.27",
    resource_name: "cpu-rental-small",
  });
  await client.workloads.deploy(w.uid);
  await client.workloads.waitForStatus(w.uid, "error", { timeoutMs: 30_000 });
  await admin("POST", "/faults", {
    method: "GET",
    path: `/workloads/${w.uid}/(events|logs)`,
    count: 10,
    latency_ms: 10_000,
  });
  const t0 = Date.now();
  await client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 30_000 }).catch(() => undefined);
  console.log(`diagnosis when the service does not answer: ${Date.now() - t0} ms (bound 2000 ms)`);
} finally {
  await client.close();
  await server.close();
}
