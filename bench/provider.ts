/**
 * The provider at scale beside the engine's own floor, measured in the same run: N mixed
 * resources (a third SSH keys, a third volumes, a third RENTAL workloads deployed and waited
 * for, each deploy taking 100 ms on the service) against N no-op dynamic resources under the
 * same engine and the same offline stack setup. For each N and front end: up, preview, refresh
 * and destroy times and their ratio to the floor, the provider process's peak RSS, the bytes
 * each resource takes in state, and the API requests per resource; with two or more N, the fixed
 * part and the part per resource of preview's and refresh's times. Printed, never asserted.
 *
 * Run: node bench/provider.ts [--n 60,240] [--front-ends dynamic,native] [--repeat 1]
 * [--delay-ms 100] [--budget-min 30] (or BENCH_PROVIDER_N, BENCH_PROVIDER_FRONT_ENDS,
 * BENCH_PROVIDER_REPEAT, BENCH_PROVIDER_DELAY_MS, BENCH_PROVIDER_BUDGET_MIN;
 * BENCH_PROVIDER_PROF=DIR writes a CPU profile of each provider process into DIR). An N whose
 * runs are expected (from the smaller N's) to end past the budget is not started; the bench says
 * so and how far it got.
 *
 * It measures the package as users install it: `npm run build` first, then the SDKs, the dynamic
 * provider and the plugin from dist/ (a checkout's tests and demo run the sources instead).
 */
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { offlineStack } from "../scripts/offline-stack.ts";
import { pulumiRoot } from "../scripts/toolchain/pulumi.ts";
import { DIST, buildPackage } from "./built-package.ts";
import { median } from "./median.ts";
import { ProcessWatch } from "./provider-procs.ts";
import {
  ENGINE,
  adminCall,
  builtPluginDir,
  floorProgram,
  startServerChild,
  type ServerChild,
  type Sdk,
} from "./stacks.ts";
import { sshKey } from "../test/helpers/ssh-keys.ts";

interface FrontEnd {
  name: string;
  sdk?: Sdk;
  env: Record<string, string>;
  /** How the engine's provider process shows in its command line. */
  process: RegExp;
}
interface Row {
  n: number;
  name: string;
  times: Record<Op, number>;
  rssBytes: number;
  /**
   * CPU seconds per operation of the engine, the provider process, this process (the program)
   * and the reference server.
   */
  cpu: Record<Op, { engine: number; provider: number; program: number; server: number }>;
  stateBytes: number;
  apiPerResource: Record<Op, number>;
}
const OPS = ["up", "preview", "refresh", "destroy"] as const;
type Op = (typeof OPS)[number];

function arg(name: string, env: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return (i > 0 ? process.argv[i + 1] : undefined) ?? process.env[env] ?? fallback;
}
const NS = arg("n", "BENCH_PROVIDER_N", "60,240").split(",").map(Number);
const WANTED = arg("front-ends", "BENCH_PROVIDER_FRONT_ENDS", "dynamic,native").split(",");
const REPEAT = Number(arg("repeat", "BENCH_PROVIDER_REPEAT", "1"));
const PROF = process.env.BENCH_PROVIDER_PROF ? resolve(process.env.BENCH_PROVIDER_PROF) : undefined;
const PROVISION_MS = Number(arg("delay-ms", "BENCH_PROVIDER_DELAY_MS", "100"));
const BUDGET_MIN = Number(arg("budget-min", "BENCH_PROVIDER_BUDGET_MIN", "30"));
/** The engine stops its plugins with a signal; exiting on it lets --cpu-prof write the profile. */
const EXIT_ON_SIGNAL =
  "data:text/javascript,for (const s of ['SIGINT','SIGTERM']) process.on(s, () => process.exit(0));";

function mixedProgram(sdk: Sdk, n: number) {
  return async () => {
    for (let i = 0; i < n / 3; i++) {
      new sdk.SshKey(`k${i}`, { name: `bench-k-${i}`, publicKey: sshKey(i, `bench-${i}`) });
      new sdk.Volume(`v${i}`, { name: `bench-v-${i}`, sizeInMb: 512, resourceName: "gpu-rental-small" });
      new sdk.Workload(`w${i}`, {
        type: "RENTAL",
        name: `bench-w-${i}`,
        image: "nginx:1.27",
        resourceName: "cpu-rental-small",
        ports: [{ port: 8080 }],
      });
    }
  };
}

async function frontEnds(pluginDir: string): Promise<FrontEnd[]> {
  const all: FrontEnd[] = [{ name: "floor", env: {}, process: /dynamic-provider/ }];
  if (WANTED.includes("dynamic"))
    all.push({
      name: "dynamic",
      sdk: (await import(join(DIST, "sdk", "index.js"))) as Sdk,
      env: {},
      process: /dynamic-provider/,
    });
  const nativeSdk = join(DIST, "sdk", "native", "index.js");
  if (WANTED.includes("native")) {
    if (!existsSync(nativeSdk))
      console.log("native: not built in this checkout (sdk/native missing); skipped");
    else
      all.push({
        name: "native",
        sdk: (await import(nativeSdk)) as Sdk,
        // The engine finds pulumi-resource-cws on PATH.
        env: {
          PATH: [dirname(process.execPath), pluginDir, join(pulumiRoot(), "bin"), process.env.PATH].join(
            delimiter,
          ),
        },
        process: /provider\/native\/pulumi-resource-cws/,
      });
  }
  return all;
}

interface Live {
  workloads: { state?: { status: string } }[];
  volumes: unknown[];
  ssh_keys: unknown[];
}

/** The bench checks what it measured did the work: every object made and running, then gone. */
async function checkLive(server: ServerChild, n: number, after: "up" | "destroy"): Promise<void> {
  const live = await adminCall<Live>(server, "GET", "/orgs/demo/resources");
  const third = after === "up" ? n / 3 : 0;
  const running = live.workloads.filter((w) => w.state?.status === "running").length;
  if (live.ssh_keys.length !== third || live.volumes.length !== third || running !== third)
    throw new Error(
      `after ${after}: ${live.ssh_keys.length} keys, ${live.volumes.length} volumes, ${running} running workloads; expected ${third} of each`,
    );
}

async function stateBytes(stack: Stack, n: number): Promise<number> {
  const state = await stack.exportStack();
  const resources = (state.deployment as { resources?: { type: string }[] }).resources ?? [];
  const mine = resources.filter((r) => /^(pulumi-nodejs:dynamic\/(cws|bench):|cws:index:)/.test(r.type));
  if (mine.length !== n) throw new Error(`state holds ${mine.length} resources, expected ${n}`);
  return mine.reduce((sum, r) => sum + JSON.stringify(r).length, 0) / n;
}

async function runOne(fe: FrontEnd, n: number, server: ServerChild): Promise<Row> {
  const profDir = PROF && join(PROF, `${fe.name}-${n}`);
  if (profDir) mkdirSync(profDir, { recursive: true });
  const s = await offlineStack({
    projectName: `bench-${fe.name}`,
    program: fe.sdk ? mixedProgram(fe.sdk, n) : floorProgram(n),
    config: {
      "cws:baseUrl": { value: server.baseUrl },
      "cws:org": { value: "demo" },
      "cws:apiToken": { value: "demo-token", secret: true },
    },
    env: {
      ...fe.env,
      // Replaces offlineStack's NODE_OPTIONS (which make a checkout run its sources): the provider
      // process loads `pulumi-cws/provider/dynamic` from dist/, as an installed package does.
      NODE_OPTIONS: profDir ? `--cpu-prof --cpu-prof-dir=${profDir} --import "${EXIT_ON_SIGNAL}"` : "",
    },
  });
  const watch = new ProcessWatch(s.dir, { engine: ENGINE, provider: fe.process });
  const times = {} as Record<Op, number>;
  const cpu = {} as Row["cpu"];
  let last = watch.take();
  const api = {} as Record<Op, number>;
  let bytes = 0;
  try {
    await server.counts();
    for (const op of OPS) {
      const t = performance.now();
      const c = process.cpuUsage();
      if (op === "up") await s.stack.up();
      else if (op === "preview") await s.stack.preview();
      else if (op === "refresh") await s.stack.refresh();
      else await s.stack.destroy();
      times[op] = (performance.now() - t) / 1000;
      const now = watch.take();
      const used = (c: string) => now[c]!.cpuSeconds - last[c]!.cpuSeconds;
      const program = process.cpuUsage(c);
      const { counts, cpuSeconds } = await server.counts();
      cpu[op] = {
        engine: used("engine"),
        provider: used("provider"),
        program: (program.user + program.system) / 1e6,
        server: cpuSeconds,
      };
      last = now;
      api[op] = Object.values(counts).reduce((a, b) => a + b, 0) / n;
      if (op === "up") {
        bytes = await stateBytes(s.stack, n);
        if (fe.sdk) await checkLive(server, n, "up");
      }
      if (op === "destroy" && fe.sdk) await checkLive(server, n, "destroy");
    }
  } finally {
    watch.stop();
    await s.cleanup();
    await adminCall(server, "POST", "/reset");
  }
  return {
    n,
    name: fe.name,
    times,
    rssBytes: last.provider!.peakRssBytes,
    cpu,
    stateBytes: bytes,
    apiPerResource: api,
  };
}

/**
 * Minutes the runs of `n` are expected to take, from those of the smaller N: the engine's work per
 * resource grows with the stack (its state is saved whole after each step), so time grows as N^k,
 * k fitted to the last two N (at least 1), or 2 after a single N.
 */
function expectedMinutes(done: { n: number; minutes: number }[], n: number): number | undefined {
  const last = done.at(-1);
  if (!last) return undefined;
  const prev = done.at(-2);
  const k = prev ? Math.max(1, Math.log(last.minutes / prev.minutes) / Math.log(last.n / prev.n)) : 2;
  return last.minutes * (n / last.n) ** k;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const minutes = () => (performance.now() - t0) / 60_000;
  buildPackage();
  const pluginDir = builtPluginDir();
  const fes = await frontEnds(pluginDir);
  const server = await startServerChild(PROVISION_MS);
  const rows: Row[][] = [];
  const done: { n: number; minutes: number }[] = [];
  let skipped: string | undefined;
  try {
    for (const n of NS) {
      const expected = expectedMinutes(done, n);
      if (expected !== undefined && minutes() + expected > BUDGET_MIN) {
        const last = done.at(-1)!;
        skipped =
          `N=${n} not run: expected to take ${expected.toFixed(1)} min (N=${last.n} took ` +
          `${last.minutes.toFixed(1)} min), past the budget of ${BUDGET_MIN} min (--budget-min)`;
        console.log(`  ${skipped}`);
        break;
      }
      const start = minutes();
      for (let r = 0; r < REPEAT; r++) {
        const runs: Row[] = [];
        for (const fe of fes) {
          const row = await runOne(fe, n, server);
          console.log(
            `  N=${n} ${fe.name.padEnd(7)} run ${r + 1}: ${OPS.map((o) => `${o} ${row.times[o].toFixed(2)}s`).join(", ")}`,
          );
          runs.push(row);
        }
        rows.push(runs);
      }
      done.push({ n, minutes: minutes() - start });
    }
  } finally {
    server.stop();
    rmSync(pluginDir, { recursive: true, force: true });
  }
  print(rows, fes);
  printFit(rows, fes);
  console.log(
    `\nMinutes per N (${REPEAT} run(s) of ${fes.map((f) => f.name).join(", ")}): ` +
      done.map((d) => `N=${d.n} ${d.minutes.toFixed(1)}`).join(", "),
  );
  if (skipped) console.log(`Largest N measured: ${done.at(-1)?.n ?? "none"}. ${skipped}.`);
  console.log(`Total bench time: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** The Ns measured, in order. */
const measuredNs = (runs: Row[][]) => [...new Set(runs.map((r) => r[0]!.n))];
/** One front end's rows at `n`, and the floor's from the same runs, in run order. */
function rowsAt(runs: Row[][], n: number, name: string): { mine: Row[]; floors: Row[] } {
  const ofN = runs.filter((r) => r[0]!.n === n);
  return {
    mine: ofN.map((r) => r.find((x) => x.name === name)!),
    floors: ofN.map((r) => r.find((x) => x.name === "floor")!),
  };
}

function print(runs: Row[][], fes: FrontEnd[]): void {
  const measured = measuredNs(runs);
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  console.log(
    `\nProvider at scale vs the engine floor (the package as built into dist/; N no-op dynamic ` +
      `resources, same engine, same run; ` +
      `deploys take ${PROVISION_MS} ms; ${REPEAT} run(s) per cell, median; ratio = front end / floor, ` +
      `range over runs in brackets)\n`,
  );
  console.log(
    `| N | front end | up | preview | refresh | destroy | provider peak RSS | state bytes/resource | API calls/resource (up, preview, refresh, destroy) |`,
  );
  console.log(`|---:|---|---|---|---|---|---:|---:|---|`);
  for (const n of measured) {
    for (const fe of fes) {
      const { mine, floors } = rowsAt(runs, n, fe.name);
      const cells = OPS.map((op) => {
        const t = median(mine.map((m) => m.times[op]));
        if (fe.name === "floor") return `${t.toFixed(2)} s`;
        const ratios = mine.map((m, i) => m.times[op] / floors[i]!.times[op]);
        const range =
          ratios.length > 1 ? ` [${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}]` : "";
        return `${t.toFixed(2)} s, **${(t / median(floors.map((f) => f.times[op]))).toFixed(2)}x**${range}`;
      });
      const api = OPS.map((op) => median(mine.map((m) => m.apiPerResource[op])).toFixed(1)).join(", ");
      console.log(
        `| ${n} | ${fe.name} | ${cells.join(" | ")} | ${mib(median(mine.map((m) => m.rssBytes)))} | ${Math.round(median(mine.map((m) => m.stateBytes)))} | ${fe.name === "floor" ? "-" : api} |`,
      );
    }
  }
  console.log(
    `\nCPU seconds per operation: engine + provider process + program + reference server (median over runs)\n`,
  );
  console.log(`| N | front end | up | preview | refresh | destroy |`);
  console.log(`|---:|---|---|---|---|---|`);
  for (const n of measured) {
    for (const fe of fes) {
      const { mine } = rowsAt(runs, n, fe.name);
      const cells = OPS.map((op) => {
        const e = median(mine.map((m) => m.cpu[op].engine));
        const p = median(mine.map((m) => m.cpu[op].provider));
        const g = median(mine.map((m) => m.cpu[op].program));
        const s = median(mine.map((m) => m.cpu[op].server));
        return `${e.toFixed(1)} + ${p.toFixed(1)} + ${g.toFixed(1)} + ${s.toFixed(1)}`;
      });
      console.log(`| ${n} | ${fe.name} | ${cells.join(" | ")} |`);
    }
  }
}

/**
 * Preview's and refresh's times split into a fixed part and a part per resource: the straight line
 * through the medians at the smallest and the largest N. As N grows, a front end's ratio to the
 * floor moves from its ratio at small N towards the ratio of the parts per resource, so a ratio
 * that rises with N comes either from a dearer resource or from a cheaper start. Up and destroy
 * are left out: the engine saves the whole state after each of their steps, so their time grows
 * faster than N and a line fits them badly.
 */
function printFit(runs: Row[][], fes: FrontEnd[]): void {
  const measured = measuredNs(runs);
  if (measured.length < 2) return;
  const [lo, hi] = [Math.min(...measured), Math.max(...measured)];
  const time = (name: string, n: number, op: Op) =>
    median(rowsAt(runs, n, name).mine.map((m) => m.times[op]));
  const fit = (name: string, op: Op) => {
    const perResource = (time(name, hi, op) - time(name, lo, op)) / (hi - lo);
    return { fixed: time(name, lo, op) - lo * perResource, perResource };
  };
  const ops = ["preview", "refresh"] as const;
  console.log(
    `\nFixed part + part per resource of preview and refresh (the line through the medians at ` +
      `N=${lo} and N=${hi}); for a front end, its part per resource over the floor's: the ratio ` +
      `its ratio tends to as N grows\n`,
  );
  console.log(`| front end | ${ops.join(" | ")} |`);
  console.log(`|---|${ops.map(() => "---|").join("")}`);
  for (const fe of fes) {
    const cells = ops.map((op) => {
      const { fixed, perResource } = fit(fe.name, op);
      const cell = `${fixed.toFixed(2)} s + ${(perResource * 1000).toFixed(2)} ms`;
      return fe.name === "floor"
        ? cell
        : `${cell}, **${(perResource / fit("floor", op).perResource).toFixed(2)}x**`;
    });
    console.log(`| ${fe.name} | ${cells.join(" | ")} |`);
  }
}

await main();
