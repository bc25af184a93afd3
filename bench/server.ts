/**
 * Reference-server benchmark: requests per second for GET state and POST create on 1 and on
 * 50 keep-alive connections, beside a bare node:http server answering the same JSON, and the
 * resident memory of the server after creating 10,000 workloads. Servers run in child
 * processes; the load comes from this process (undici Pool). Run: node bench/server.ts
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";

const CHILD = fileURLToPath(new URL("./server-child.ts", import.meta.url));
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
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
  rss(): Promise<number>;
  stop(): Promise<void>;
}

async function spawnServer(mode: "ref" | "bare", dataDir = ""): Promise<Child> {
  const proc = fork(CHILD, [mode, dataDir], {
    execArgv: ["--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once("message", (m) => resolve((m as { port: number }).port));
    proc.once("exit", (c) => reject(new Error(`${mode} server exited ${c}`)));
  });
  return {
    proc,
    origin: `http://127.0.0.1:${port}`,
    rss: () =>
      new Promise((resolve) => {
        proc.once("message", (m) => resolve((m as { rss: number }).rss));
        proc.send("rss");
      }),
    stop: () =>
      new Promise((resolve) => {
        proc.once("exit", () => resolve());
        proc.send("exit");
      }),
  };
}

/** Requests per second: `connections` loops, each sending the next request when the last is answered. */
async function rps(
  origin: string,
  connections: number,
  req: () => { method: "GET" | "POST"; path: string; body?: string },
): Promise<number> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  let done = 0;
  let failed = 0;
  const until = performance.now() + DURATION_MS;
  const started = performance.now();
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
  const secs = (performance.now() - started) / 1000;
  await pool.close();
  if (failed) throw new Error(`${failed} requests failed`);
  return done / secs;
}

async function createOne(origin: string): Promise<string> {
  const res = await fetch(`${origin}/v3/orgs/demo/workloads`, { method: "POST", headers: AUTH, body: BODY });
  return ((await res.json()) as { uid: string }).uid;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const rows: [string, number, number, number][] = [];
  const dataDir = mkdtempSync(join(tmpdir(), "cws-bench-"));
  const ref = await spawnServer("ref");
  const refDisk = await spawnServer("ref", dataDir);
  const bare = await spawnServer("bare");
  try {
    const uid = await createOne(ref.origin);
    const get = () => ({ method: "GET" as const, path: `/v3/orgs/demo/workloads/${uid}/state` });
    const post = () => ({ method: "POST" as const, path: "/v3/orgs/demo/workloads", body: BODY });
    for (const c of [1, 50]) {
      rows.push([`GET state`, c, await rps(ref.origin, c, get), await rps(bare.origin, c, get)]);
      rows.push([`POST create`, c, await rps(ref.origin, c, post), await rps(bare.origin, c, post)]);
      rows.push([`POST create (--data-dir)`, c, await rps(refDisk.origin, c, post), NaN]);
    }
  } finally {
    await ref.stop();
    await refDisk.stop();
    await bare.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const fresh = await spawnServer("ref");
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
  const fmt = (n: number) => (Number.isNaN(n) ? "-" : Math.round(n).toLocaleString("en-US"));
  console.log(
    `\nReference server vs bare node:http (${DURATION_MS} ms per cell, ${process.version}, keep-alive, undici Pool)\n`,
  );
  console.log(`| Request                   | Conns | cws-reference req/s | bare node:http req/s | ratio |`);
  console.log(`|---------------------------|------:|--------------------:|---------------------:|------:|`);
  for (const [name, c, r, b] of rows) {
    const ratio = Number.isNaN(b) ? "-" : `${((r / b) * 100).toFixed(0)}%`;
    console.log(
      `| ${name.padEnd(25)} | ${String(c).padStart(5)} | ${fmt(r).padStart(19)} | ${fmt(b).padStart(20)} | ${ratio.padStart(5)} |`,
    );
  }
  console.log(
    `\nResident memory (rss): ${mib(before)} at start, ${mib(after)} after creating 10,000 workloads (+${mib(after - before)})`,
  );
  console.log(`Total bench time: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

await main();
