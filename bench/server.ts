/**
 * Reference-server benchmark: requests per second for GET state and POST create on 1 and on
 * 50 keep-alive connections, beside a bare node:http server answering the same JSON (the
 * reference server's own answers, same headers) on as many connections, and the resident
 * memory of the server after creating 10,000 workloads. Servers run in child processes; the
 * load comes from this process (undici Pool). The servers of a row are measured in turns
 * (BENCH_ROUNDS slices each, the order reversed every round), so that a machine busy with
 * other work weighs on all of them alike. Run: node bench/server.ts
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";

const CHILD = fileURLToPath(new URL("./server-child.ts", import.meta.url));
/** Measuring time per server and row. */
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const WARMUP_MS = 300;
const AUTH = { authorization: "Bearer demo-token", "content-type": "application/json" };
const BODY = JSON.stringify({
  type: "RENTAL",
  name: "bench",
  image: "nginx:1.27",
  resource_name: "gpu-rental-small",
  ports: [{ port: 8080 }],
});

interface Child {
  proc: ChildProcess;
  origin: string;
  /** Resident memory and live heap (after a full collection), bytes. */
  rss(): Promise<{ rss: number; heapUsed: number }>;
  stop(): Promise<void>;
}

async function spawnServer(args: string[]): Promise<Child> {
  const proc = fork(CHILD, args, {
    execArgv: ["--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once("message", (m) => resolve((m as { port: number }).port));
    proc.once("exit", (c) => reject(new Error(`${args[0]} server exited ${c}`)));
  });
  return {
    proc,
    origin: `http://127.0.0.1:${port}`,
    rss: () =>
      new Promise((resolve) => {
        proc.once("message", (m) => resolve(m as { rss: number; heapUsed: number }));
        proc.send("rss");
      }),
    stop: () =>
      new Promise((resolve) => {
        proc.once("exit", () => resolve());
        proc.send("exit");
      }),
  };
}

type Req = () => { method: "GET" | "POST"; path: string; body?: string };

/** Requests answered in `ms`: `connections` loops, each sending the next request when the last is answered. */
async function load(
  pool: Pool,
  connections: number,
  req: Req,
  ms: number,
): Promise<{ done: number; secs: number }> {
  let done = 0;
  let failed = 0;
  const started = performance.now();
  const until = started + ms;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const r = req();
        const res = await pool.request({ method: r.method, path: r.path, headers: AUTH, body: r.body });
        await res.body.text();
        if (res.statusCode >= 400) failed++;
        done++;
      }
    }),
  );
  if (failed) throw new Error(`${failed} requests failed`);
  return { done, secs: (performance.now() - started) / 1000 };
}

/** Requests per second of each server for the same request, measured in interleaved slices. */
async function rps(origins: string[], connections: number, req: Req): Promise<number[]> {
  const pools = origins.map((o) => new Pool(o, { connections, pipelining: 1 }));
  const done = origins.map(() => 0);
  const secs = origins.map(() => 0);
  try {
    for (const pool of pools) await load(pool, connections, req, WARMUP_MS);
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...origins.keys()];
      if (round % 2) order.reverse();
      for (const i of order) {
        const r = await load(pools[i]!, connections, req, DURATION_MS / ROUNDS);
        done[i]! += r.done;
        secs[i]! += r.secs;
      }
    }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  return done.map((d, i) => d / secs[i]!);
}

async function createOne(origin: string): Promise<string> {
  const res = await fetch(`${origin}/v3/orgs/demo/workloads`, { method: "POST", headers: AUTH, body: BODY });
  return ((await res.json()) as { uid: string }).uid;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const rows: [string, number, number, number][] = [];
  const dataDir = mkdtempSync(join(tmpdir(), "cws-bench-"));
  const ref = await spawnServer(["ref"]);
  const refDisk = await spawnServer(["ref", dataDir]);
  let bare: Child | undefined;
  try {
    const uid = await createOne(ref.origin);
    const state = await (
      await fetch(`${ref.origin}/v3/orgs/demo/workloads/${uid}/state`, { headers: AUTH })
    ).text();
    const created = await (
      await fetch(`${ref.origin}/v3/orgs/demo/workloads`, { method: "POST", headers: AUTH, body: BODY })
    ).text();
    bare = await spawnServer(["bare", state, created]);
    const get = () => ({ method: "GET" as const, path: `/v3/orgs/demo/workloads/${uid}/state` });
    const post = () => ({ method: "POST" as const, path: "/v3/orgs/demo/workloads", body: BODY });
    for (const c of [1, 50]) {
      const [g, gBare] = await rps([ref.origin, bare.origin], c, get);
      rows.push([`GET state`, c, g!, gBare!]);
      const [p, pDisk, pBare] = await rps([ref.origin, refDisk.origin, bare.origin], c, post);
      rows.push([`POST create`, c, p!, pBare!]);
      rows.push([`POST create (--data-dir)`, c, pDisk!, pBare!]);
    }
  } finally {
    await ref.stop();
    await refDisk.stop();
    await bare?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const fresh = await spawnServer(["ref"]);
  const before = await fresh.rss();
  const pool = new Pool(fresh.origin, { connections: 50 });
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < 10_000) {
        next++;
        const res = await pool.request({
          method: "POST",
          path: "/v3/orgs/demo/workloads",
          headers: AUTH,
          body: BODY,
        });
        await res.body.text();
        if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode}`);
      }
    }),
  );
  await pool.close();
  const after = await fresh.rss();
  await fresh.stop();

  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  console.log(
    `\nReference server vs bare node:http (${DURATION_MS} ms per server and row in ${ROUNDS} interleaved slices, ${process.version}, keep-alive, undici Pool)\n`,
  );
  console.log(`| Request                   | Conns | cws-reference req/s | bare node:http req/s | ratio |`);
  console.log(`|---------------------------|------:|--------------------:|---------------------:|------:|`);
  for (const [name, c, r, b] of rows) {
    const ratio = `${((r / b) * 100).toFixed(0)}%`;
    console.log(
      `| ${name.padEnd(25)} | ${String(c).padStart(5)} | ${fmt(r).padStart(19)} | ${fmt(b).padStart(20)} | ${ratio.padStart(5)} |`,
    );
  }
  console.log(
    `\nResident memory (rss): ${mib(before.rss)} at start, ${mib(after.rss)} after creating 10,000 workloads (+${mib(after.rss - before.rss)})`,
  );
  console.log(
    `Per 10,000 workloads: rss +${mib(after.rss - before.rss)}, live heap +${mib(after.heapUsed - before.heapUsed)} (${mib(before.heapUsed)} → ${mib(after.heapUsed)}, after a full collection)`,
  );
  console.log(`Total bench time: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

await main();
