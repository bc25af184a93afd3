/**
 * Snapshot restore beside reset: an org of 1,000 objects (700 workloads, 100 of them deployed
 * with their events, 200 volumes, 100 templates) saved once, then `POST /admin/reset` and
 * `POST /admin/snapshots/NAME/restore` timed in turns (median of ROUNDS each), in memory and with
 * --data-dir, with the CPU time of the restore and the server's own figure for the swap
 * (`restore_ms`). The floor, measured in the
 * same run: what any restore of that snapshot does at the least, parse its JSON and write its rows
 * into an SQLite database of the same kind (one transaction) with nothing else. The bound of
 * docs/reference-server.md is 50 ms at 1,000 objects. Run: node bench/snapshot.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startServer, type RunningServer } from "../server/index.ts";
import { writeImage, type StoreImage } from "../server/store/image.ts";
import { migrate } from "../server/store/tables.ts";
import { median } from "./median.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const AUTH = { authorization: "Bearer demo-token", "content-type": "application/json" };
const ADMIN = { authorization: "Bearer admin-token" };

async function post(s: RunningServer, path: string, body: unknown): Promise<{ uid: string }> {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method: "POST",
    headers: AUTH,
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { uid: string };
}

async function admin(s: RunningServer, method: string, path: string): Promise<unknown> {
  const res = await fetch(`${s.adminUrl}${path}`, { method, headers: ADMIN });
  if (!res.ok) throw new Error(`${method} /admin${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** 1,000 objects of the demo org: 700 workloads (100 deployed), 200 volumes, 100 templates. */
async function populate(s: RunningServer): Promise<void> {
  const deployed: string[] = [];
  for (let i = 0; i < 700; i++) {
    const w = await post(s, "/orgs/demo/workloads", {
      type: "RENTAL",
      name: `w-${i}`,
      image: "nginx:1.27",
      resource_name: i < 100 ? "gpu-rental-small" : "cpu-rental-small",
      ports: [{ port: 8080 }],
    });
    if (i < 100) deployed.push(w.uid);
  }
  for (const uid of deployed) await post(s, `/orgs/demo/workloads/${uid}/deploy`, undefined);
  for (let i = 0; i < 200; i++)
    await post(s, "/orgs/demo/volumes", {
      name: `v-${i}`,
      size_in_mb: 64,
      resource_name: "gpu-rental-small",
    });
  for (let i = 0; i < 100; i++)
    await post(s, "/orgs/demo/templates", {
      name: `t-${i}`,
      type: "RENTAL",
      manifest: { type: "RENTAL", name: "a", image: "i", resource_name: "gpu-rental-small" },
    });
  // Let the deploys finish, so that their events are in the snapshot.
  await new Promise((r) => setTimeout(r, 200));
}

interface Row {
  reset: number;
  restore: number;
  /** CPU time of this process (the server and the client of the request) during the restore. */
  cpu: number;
  server: number;
  floor: number;
  objects: number;
  events: number;
  bytes: number;
}

async function measure(dataDir: string | undefined): Promise<Row> {
  const s = await startServer({ port: 0, dataDir, provisionDelayMs: 10 });
  try {
    await populate(s);
    const info = (await admin(s, "PUT", "/snapshots/bench")) as { objects: number; bytes: number };
    const data = s.context.store.snapshots.get("bench")!.data;
    const image = (JSON.parse(data) as { parts: { store: StoreImage } }).parts.store;
    const floorDir = dataDir && mkdtempSync(join(tmpdir(), "cws-bench-floor-"));
    const floorDb = new DatabaseSync(floorDir ? join(floorDir, "floor.sqlite") : ":memory:");
    floorDb.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    migrate(floorDb, 0);
    const times: Record<"reset" | "restore" | "cpu" | "server" | "floor", number[]> = {
      reset: [],
      restore: [],
      cpu: [],
      server: [],
      floor: [],
    };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        let t = performance.now();
        await admin(s, "POST", "/reset");
        times.reset.push(performance.now() - t);
        t = performance.now();
        const cpu = process.cpuUsage();
        const r = (await admin(s, "POST", "/snapshots/bench/restore")) as { restore_ms: number };
        times.restore.push(performance.now() - t);
        const used = process.cpuUsage(cpu);
        times.cpu.push((used.user + used.system) / 1000);
        times.server.push(r.restore_ms);
        t = performance.now();
        const parsed = (JSON.parse(data) as { parts: { store: StoreImage } }).parts.store;
        floorDb.exec("BEGIN");
        writeImage(floorDb, parsed);
        floorDb.exec("COMMIT");
        times.floor.push(performance.now() - t);
      }
    } finally {
      floorDb.close();
      if (floorDir) rmSync(floorDir, { recursive: true, force: true });
    }
    return {
      reset: median(times.reset),
      restore: median(times.restore),
      cpu: median(times.cpu),
      server: median(times.server),
      floor: median(times.floor),
      objects: info.objects,
      events: image.events.length,
      bytes: info.bytes,
    };
  } finally {
    await s.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), "cws-bench-snapshot-"));
try {
  const rows: [string, Row][] = [
    ["in memory", await measure(undefined)],
    ["--data-dir", await measure(dir)],
  ];
  const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(9);
  const r0 = rows[0]![1];
  console.log(
    `\nSnapshot restore beside reset: an org of ${r0.objects} objects and ${r0.events} events (${(r0.bytes / 1024).toFixed(0)} KiB of JSON), median of ${ROUNDS} rounds, ${process.version}; bound 50 ms\n`,
  );
  console.log(
    "| State      | reset (HTTP) | restore (HTTP) | restore CPU | restore (server) | floor: parse + write rows |",
  );
  console.log(
    "|------------|-------------:|---------------:|------------:|-----------------:|--------------------------:|",
  );
  for (const [label, r] of rows)
    console.log(
      `| ${label.padEnd(10)} | ${ms(r.reset).padStart(12)} | ${ms(r.restore).padStart(14)} | ${ms(r.cpu).padStart(11)} | ${ms(r.server).padStart(16)} | ${ms(r.floor).padStart(25)} |`,
    );
  console.log(
    "\nrestore (HTTP): the admin request's round trip; restore CPU: this process's CPU time meanwhile (server and client: what a loaded machine does not inflate); restore (server): the swap alone, as the server times it (restore_ms).",
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
