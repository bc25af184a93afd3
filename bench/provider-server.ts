/**
 * The reference server for bench/provider.ts, in its own process so that it does not share a
 * core's event loop with the program the bench runs inline. Deploys take `argv[2]` ms (default
 * 100); the seed has room for any N (capacity and credits raised). It counts the API requests
 * it answers by route and by status and hands the counts, with the CPU seconds it used (alone,
 * and with the processes it started: the sandboxes), over IPC ("counts" answers and resets them).
 */
import { appendFileSync } from "node:fs";
import { startServer, DEFAULT_SEED, type Seed } from "../server/index.ts";
import { treeCpuSeconds } from "./provider-procs.ts";

const provisionDelayMs = Number(process.argv[2] ?? 100);

const seed: Seed = {
  ...DEFAULT_SEED,
  orgs: DEFAULT_SEED.orgs.map((o) => ({ ...o, credits: 1_000_000 })),
  inventory: DEFAULT_SEED.inventory.map((r) =>
    r.type === "rental" || r.type === "sandbox" ? { ...r, capacity: 100_000 } : r,
  ),
};

/** When set, a file each answered API request appends `<start ms> <end ms> <status> <route>` to. */
const TIMELINE = process.env.BENCH_SERVER_TIMELINE;

let counts: Record<string, number> = {};
let statuses: Record<string, number> = {};
let cpu = process.cpuUsage();
let treeCpu = treeCpuSeconds(process.pid);
/** `GET /v3/orgs/demo/workloads/wl-1/state 200 1.2ms` → `GET /workloads/{uid}/state` */
function route(line: string): string | undefined {
  const [method, path] = line.split(" ");
  if (!method || !path?.startsWith("/v3/")) return undefined;
  const tail = path
    .replace(/^\/v3\/orgs\/[^/]+/, "")
    .split("/")
    .map((seg, i) => (i === 2 || i === 4 ? "{uid}" : seg))
    .join("/");
  return `${method} ${tail}`;
}

const server = await startServer({
  port: 0,
  provisionDelayMs,
  seed,
  log: (line) => {
    const r = route(line);
    if (!r) return;
    counts[r] = (counts[r] ?? 0) + 1;
    const status = line.split(" ")[2] ?? "?";
    if (TIMELINE) {
      const end = Date.now();
      const start = end - Math.round(parseFloat(line.split(" ")[3] ?? "0"));
      appendFileSync(TIMELINE, `${start} ${end} ${status} ${r}\n`);
    }
    statuses[status] = (statuses[status] ?? 0) + 1;
  },
});

process.on("message", (m: unknown) => {
  if (m === "counts") {
    const used = process.cpuUsage(cpu);
    const tree = treeCpuSeconds(process.pid);
    process.send!({
      counts,
      statuses,
      cpuSeconds: (used.user + used.system) / 1e6,
      treeCpuSeconds: tree - treeCpu,
    });
    counts = {};
    statuses = {};
    cpu = process.cpuUsage();
    treeCpu = tree;
  } else if (m === "exit") void server.close().then(() => process.exit(0));
});
process.send!({ baseUrl: server.baseUrl, adminUrl: server.adminUrl });
