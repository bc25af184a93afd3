/**
 * The provider at scale, with no rate limit and under one: N mixed objects (a fifth each of SSH
 * keys, volumes, RENTAL workloads using a key and a volume, sandboxes and workload templates)
 * created, previewed (planned), refreshed and destroyed, 64 at a time, through the dynamic, native
 * and OpenTofu front ends; beside each engine's floor measured in the same run (N no-op dynamic
 * resources for Pulumi, N `terraform_data` resources, built into OpenTofu in Go, for OpenTofu).
 * For each run and phase: the wall time, the API requests the server answered and the 429s among
 * them; for a limited run, the floor `requests / rate` (no client can do the phase faster) and
 * the wall time over it; the provider process's peak RSS and, for a run with no limit, per phase,
 * the live heap the provider processes end it with (heapUsed after full GCs, the largest of the
 * phase's processes: heap-probe.ts, compiled to JavaScript and preloaded through NODE_OPTIONS into
 * every provider process the engines start, Pulumi's dynamic provider being the engine's own
 * Node.js process; a limited run goes without, the probe's collections at each provider exit
 * being time no user spends). Printed, never asserted.
 *
 * Run: node bench/scale.ts [--n 100,500] [--front-ends dynamic,native,opentofu]
 * [--limits none,50:50] [--parallel 64] [--delay-ms 100] [--budget-min 240]
 * [--node-options "--max-semi-space-size=8"] [--skip-checkpoints] (or BENCH_SCALE_N,
 * BENCH_SCALE_FRONT_ENDS, BENCH_SCALE_LIMITS, BENCH_SCALE_PARALLEL, BENCH_SCALE_DELAY_MS,
 * BENCH_SCALE_BUDGET_MIN, BENCH_SCALE_NODE_OPTIONS, BENCH_SCALE_SKIP_CHECKPOINTS=1). A limit is
 * `RPS:BURST`, set on the demo org for the run (the server's `--rate-limit`); `none` is no limit.
 * `--node-options` are Node.js options added for every provider process (to try V8's heap flags).
 * An N expected (from the smaller N's) to end past the budget is not started; the bench says so.
 * BENCH_SCALE_HEAP_LOG=1 prints what each provider process's probe measured, V8's heap spaces
 * among it, after each phase.
 * BENCH_SERVER_TIMELINE=<file> has the server write each API request it answers to the file, and
 * the bench each phase's start and end: bench/timeline.ts draws a limited phase from it.
 *
 * It measures the package as users install it: `npm run build` first, then the SDKs, the dynamic
 * provider, the plugin and the OpenTofu provider from dist/. Deploys take `--delay-ms` on the
 * service; sandboxes are real (bubblewrap), as the reference server runs them.
 */
import type { PulumiFn } from "@pulumi/pulumi/automation/index.js";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { offlineStack } from "../scripts/offline-stack.ts";
import { runProcess } from "../scripts/run.ts";
import { pulumiRoot } from "../scripts/toolchain/pulumi.ts";
import { mirrorEnv, tofuPath } from "../scripts/toolchain/tofu.ts";
import { sshKey } from "../test/helpers/ssh-keys.ts";
import { DIST, buildPackage } from "./built-package.ts";
import type { HeapSample } from "./heap-probe.ts";
import { ProcessWatch } from "./provider-procs.ts";
import {
  ENGINE,
  adminCall,
  builtPluginDir,
  builtTofuMirror,
  floorProgram,
  startServerChild,
  type ServerChild,
  type Sdk,
} from "./stacks.ts";

function arg(name: string, env: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return (i > 0 ? process.argv[i + 1] : undefined) ?? process.env[env] ?? fallback;
}
const NS = arg("n", "BENCH_SCALE_N", "100,500").split(",").map(Number);
const WANTED = arg("front-ends", "BENCH_SCALE_FRONT_ENDS", "dynamic,native,opentofu").split(",");
const LIMITS = arg("limits", "BENCH_SCALE_LIMITS", "none,50:50").split(",");
const PARALLEL = Number(arg("parallel", "BENCH_SCALE_PARALLEL", "64"));
const PROVISION_MS = Number(arg("delay-ms", "BENCH_SCALE_DELAY_MS", "100"));
const BUDGET_MIN = Number(arg("budget-min", "BENCH_SCALE_BUDGET_MIN", "240"));
/** Node.js options added for the provider processes (to try V8 heap flags), beside the probe's. */
const NODE_FLAGS = arg("node-options", "BENCH_SCALE_NODE_OPTIONS", "");
/**
 * The Pulumi engine without its checkpoints (`PULUMI_SKIP_CHECKPOINTS`): it then writes the stack's
 * state once at the end of a command instead of after every step, which with the file backend
 * rewrites the whole state each time (quadratic in N).
 */
const SKIP_CHECKPOINTS =
  process.argv.includes("--skip-checkpoints") || !!process.env.BENCH_SCALE_SKIP_CHECKPOINTS;

const PHASES = ["up", "preview", "refresh", "destroy"] as const;
type Phase = (typeof PHASES)[number];
/** How OpenTofu's own process shows in its command line. */
const TOFU_ENGINE = /\/tofu\0(apply|plan|destroy)\0/;
/** OpenTofu's word for each phase. */
const TOFU_WORDS: Record<Phase, string> = {
  up: "apply",
  preview: "plan",
  refresh: "refresh",
  destroy: "destroy",
};

interface Limit {
  label: string;
  rps?: number;
  burst?: number;
}
function parseLimit(s: string): Limit {
  if (s === "none") return { label: "none" };
  const [rps, burst] = s.split(":").map(Number);
  if (!(rps! > 0)) throw new Error(`--limits: ${s} is not none or RPS[:BURST]`);
  return { label: s, rps, burst: burst ?? Math.ceil(rps!) };
}

/** A front end (or a floor) as the bench drives it: the four phases on one stack. */
interface Target {
  name: string;
  engine: "pulumi" | "opentofu";
  floor: boolean;
  /** How the provider process shows in its command line. */
  provider: RegExp;
  /** With `probe`, the provider processes report their live heap (heap-probe.ts). */
  open(n: number, server: ServerChild, probe: boolean): Promise<OpenTarget>;
}
interface OpenTarget {
  /** The dir whose path the engine's and the provider's environment carry (for ProcessWatch). */
  dir: string;
  /** Where the provider processes' heap probes write (heap-probe.ts). */
  heapDir: string;
  run(phase: Phase): Promise<void>;
  close(): Promise<void>;
}

interface PhaseRow {
  wall: number;
  requests: number;
  refused: number;
  /** The largest live heap (heapUsed after a full GC) a provider process ended the phase with. */
  liveHeap: number;
  /**
   * CPU seconds in the phase: the engine's process (`pulumi`, `tofu`), the bench's own (where
   * Pulumi's inline program runs), the provider processes, the server with its sandboxes.
   */
  cpu: { engine: number; program: number; provider: number; server: number };
}
interface Row {
  n: number;
  limit: Limit;
  target: Target;
  phases: Record<Phase, PhaseRow>;
  rssBytes: number;
}

/** CPU time the provider processes used over the four phases (user + system). */
const providerCpu = (r: Row) => PHASES.reduce((a, p) => a + r.phases[p].cpu.provider, 0);

// --- the programs -------------------------------------------------------------------------------

const KINDS = 5;

function mixedProgram(sdk: Sdk, n: number): PulumiFn {
  return async () => {
    for (let i = 0; i < n / KINDS; i++) {
      const key = new sdk.SshKey(`k${i}`, { name: `bench-k-${i}`, publicKey: sshKey(i, `bench-${i}`) });
      const vol = new sdk.Volume(`v${i}`, {
        name: `bench-v-${i}`,
        sizeInMb: 512,
        resourceName: "gpu-rental-small",
      });
      new sdk.Workload(`w${i}`, {
        type: "RENTAL",
        name: `bench-w-${i}`,
        image: "nginx:1.27",
        resourceName: "cpu-rental-small",
        ports: [{ port: 8080 }],
        sshKeys: [key.uid],
        volumes: [{ uid: vol.uid, mountPath: "/data" }],
      });
      new sdk.Sandbox(`s${i}`, { name: `bench-s-${i}`, template: "tpl-ubuntu-headless" });
      new sdk.WorkloadTemplate(`t${i}`, {
        name: `bench-t-${i}`,
        type: "RENTAL",
        manifest: { name: `web-${i}`, image: "nginx:1.27", resourceName: "cpu-rental-small" },
      });
    }
  };
}

function mixedHcl(n: number): string {
  const blocks = [`terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}`];
  for (let i = 0; i < n / KINDS; i++) {
    blocks.push(
      `resource "cws_ssh_key" "k${i}" {\n  name = "bench-k-${i}"\n  public_key = ${JSON.stringify(sshKey(i, `bench-${i}`))}\n}`,
      `resource "cws_volume" "v${i}" {\n  name = "bench-v-${i}"\n  size_in_mb = 512\n  resource_name = "gpu-rental-small"\n}`,
      `resource "cws_workload" "w${i}" {\n  type = "RENTAL"\n  name = "bench-w-${i}"\n  image = "nginx:1.27"\n  resource_name = "cpu-rental-small"\n  ports = [{ port = 8080 }]\n  ssh_keys = [cws_ssh_key.k${i}.uid]\n  volumes = [{ uid = cws_volume.v${i}.uid, mount_path = "/data" }]\n}`,
      `resource "cws_sandbox" "s${i}" {\n  name = "bench-s-${i}"\n  template = "tpl-ubuntu-headless"\n}`,
      `resource "cws_workload_template" "t${i}" {\n  name = "bench-t-${i}"\n  type = "RENTAL"\n  manifest = jsonencode({ name = "web-${i}", image = "nginx:1.27", resource_name = "cpu-rental-small" })\n}`,
    );
  }
  return `${blocks.join("\n\n")}\n`;
}

function floorHcl(n: number): string {
  return Array.from(
    { length: n },
    (_, i) => `resource "terraform_data" "r${i}" {\n  input = "r${i}"\n}\n`,
  ).join("\n");
}

// --- the provider's live heap -------------------------------------------------------------------

/**
 * The probe as JavaScript, compiled once per bench run: preloaded as TypeScript, it made Node load
 * its type stripper in every provider process, about 70 ms more to each start.
 */
const PROBE = ((): string => {
  const file = join(mkdtempSync(join(tmpdir(), "cws-scale-probe-")), "heap-probe.mjs");
  const source = readFileSync(new URL("./heap-probe.ts", import.meta.url), "utf8");
  writeFileSync(
    file,
    ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText,
  );
  return pathToFileURL(file).href;
})();

/**
 * What a provider process is started with: with `probe`, so that it reports its live heap when it
 * ends (heap-probe.ts): Node's `gc` exposed and the probe preloaded. The engines pass their
 * environment on to the provider processes they start (for Pulumi's dynamic provider, the engine's
 * own Node.js process, which loads the provider from dist/). Without, only `--node-options`.
 */
function probeEnv(heapDir: string, probe: boolean): Record<string, string> {
  const options = [probe ? `--expose-gc --import=${PROBE}` : "", NODE_FLAGS].filter(Boolean).join(" ");
  return {
    ...(options ? { NODE_OPTIONS: options } : {}),
    ...(probe ? { CWS_BENCH_HEAP_DIR: heapDir } : {}),
  };
}

/** The samples the probes in heapDir wrote between from and to (ms since the epoch). */
function heapSamples(heapDir: string, from: number, to: number): HeapSample[] {
  const out: HeapSample[] = [];
  for (const f of readdirSync(heapDir))
    for (const l of readFileSync(join(heapDir, f), "utf8").split("\n"))
      if (l) {
        const sample = JSON.parse(l) as HeapSample;
        if (sample.at >= from && sample.at <= to) out.push(sample);
      }
  return out;
}

// --- the targets --------------------------------------------------------------------------------

function pulumiTarget(
  name: string,
  sdk: Sdk | undefined,
  env: Record<string, string>,
  provider: RegExp,
): Target {
  return {
    name,
    engine: "pulumi",
    floor: !sdk,
    provider,
    async open(n, server, probe) {
      const heapDir = mkdtempSync(join(tmpdir(), "cws-scale-heap-"));
      const s = await offlineStack({
        projectName: `scale-${name.replace(/ /g, "-")}`,
        program: sdk ? mixedProgram(sdk, n) : floorProgram(n),
        config: {
          "cws:baseUrl": { value: server.baseUrl },
          "cws:org": { value: "demo" },
          "cws:apiToken": { value: "demo-token", secret: true },
        },
        // No source condition: the provider process loads `pulumi-cws/provider/dynamic` from dist/.
        env: {
          ...env,
          ...probeEnv(heapDir, probe),
          ...(SKIP_CHECKPOINTS ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {}),
        },
      });
      const parallel = PARALLEL;
      return {
        dir: s.dir,
        heapDir,
        async run(phase) {
          if (phase === "up") await s.stack.up({ parallel });
          else if (phase === "preview") await s.stack.preview({ parallel });
          else if (phase === "refresh") await s.stack.refresh({ parallel });
          else await s.stack.destroy({ parallel });
        },
        close: async () => {
          await s.cleanup();
          rmSync(heapDir, { recursive: true, force: true });
        },
      };
    },
  };
}

function tofuTarget(floor: boolean): Target {
  return {
    name: floor ? "tofu floor" : "opentofu",
    engine: "opentofu",
    floor,
    provider: /provider\/opentofu\/main/,
    async open(n, server, probe) {
      const root = mkdtempSync(join(tmpdir(), "cws-scale-tofu-"));
      const dir = join(root, "project");
      mkdirSync(dir);
      writeFileSync(join(dir, "main.tf"), floor ? floorHcl(n) : mixedHcl(n));
      const mirror = join(root, "mirror");
      builtTofuMirror(mirror);
      const heapDir = join(root, "heap");
      mkdirSync(heapDir);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...mirrorEnv(root, mirror),
        CWS_BASE_URL: server.baseUrl,
        CWS_ORG: "demo",
        CWS_API_TOKEN: "demo-token",
        CWS_BENCH_DIR: root,
        ...probeEnv(heapDir, probe),
      };
      const tofu = async (...args: string[]) => {
        const r = await runProcess(tofuPath(), [...args, "-no-color"], { cwd: dir, env, allowFailure: true });
        if (r.code !== 0)
          throw new Error(`tofu ${args.join(" ")} exited with ${r.code}:\n${r.output.slice(-4000)}`);
      };
      await tofu("init");
      const p = `-parallelism=${PARALLEL}`;
      return {
        dir: root,
        heapDir,
        async run(phase) {
          if (phase === "up") await tofu("apply", "-auto-approve", p);
          else if (phase === "preview") await tofu("plan", p);
          else if (phase === "refresh") await tofu("apply", "-refresh-only", "-auto-approve", p);
          else await tofu("destroy", "-auto-approve", p);
        },
        close: async () => rmSync(root, { recursive: true, force: true }),
      };
    },
  };
}

async function targets(pluginDir: string): Promise<Target[]> {
  const all: Target[] = [];
  const pulumiWanted = WANTED.some((w) => w === "dynamic" || w === "native");
  if (pulumiWanted) all.push(pulumiTarget("pulumi floor", undefined, {}, /dynamic-provider/));
  if (WANTED.includes("dynamic"))
    all.push(
      pulumiTarget("dynamic", (await import(join(DIST, "sdk", "index.js"))) as Sdk, {}, /dynamic-provider/),
    );
  if (WANTED.includes("native"))
    all.push(
      pulumiTarget(
        "native",
        (await import(join(DIST, "sdk", "native", "index.js"))) as Sdk,
        {
          PATH: [dirname(process.execPath), pluginDir, join(pulumiRoot(), "bin"), process.env.PATH].join(
            delimiter,
          ),
        },
        /provider\/native\/main/,
      ),
    );
  if (WANTED.includes("opentofu")) {
    if (!existsSync(tofuPath()))
      console.log(`opentofu: ${tofuPath()} is missing (npm run tofu:build); skipped`);
    else all.push(tofuTarget(true), tofuTarget(false));
  }
  return all;
}

/** Marks a phase's start and end in the server's request timeline, when it keeps one. */
function mark(line: string): void {
  if (process.env.BENCH_SERVER_TIMELINE) appendFileSync(process.env.BENCH_SERVER_TIMELINE, `# ${line}\n`);
}

// --- one run ------------------------------------------------------------------------------------

interface Live {
  workloads: { type: string; state?: { status: string } }[];
  volumes: unknown[];
  ssh_keys: unknown[];
  templates: unknown[];
}

/** The bench checks that what it measured did the work: every object made and running, then gone. */
async function checkLive(server: ServerChild, n: number, after: "up" | "destroy"): Promise<void> {
  const live = await adminCall<Live>(server, "GET", "/orgs/demo/resources");
  const each = after === "up" ? n / KINDS : 0;
  const running = (type: string) =>
    live.workloads.filter((w) => w.type === type && w.state?.status === "running").length;
  const found = [
    live.ssh_keys.length,
    live.volumes.length,
    running("RENTAL"),
    running("SANDBOX"),
    live.templates.length,
  ];
  if (found.some((c) => c !== each) || live.workloads.length !== 2 * each)
    throw new Error(
      `after ${after}: ${found.join(", ")} keys, volumes, running workloads, running sandboxes, templates ` +
        `(${live.workloads.length} workloads in all); expected ${each} of each`,
    );
}

async function runOne(t: Target, n: number, limit: Limit, server: ServerChild): Promise<Row> {
  await adminCall(server, "POST", "/reset");
  if (limit.rps)
    await adminCall(server, "PUT", "/orgs/demo/rate-limit", { rps: limit.rps, burst: limit.burst });
  // The probe's collections at the exit of every provider process (and its start) would count in
  // a limited run's wall time, held against the floor `requests / rate`: the live heap is
  // measured in the runs with no limit only.
  const open = await t.open(n, server, !limit.rps);
  const watch = new ProcessWatch(open.dir, {
    engine: t.engine === "pulumi" ? ENGINE : TOFU_ENGINE,
    provider: t.provider,
  });
  const phases = {} as Record<Phase, PhaseRow>;
  let before = { engine: 0, provider: 0 };
  try {
    await server.counts();
    for (const phase of PHASES) {
      const start = performance.now();
      const from = Date.now();
      const programBefore = process.cpuUsage();
      mark(`${from} begin ${t.name} ${limit.label} ${n} ${phase}`);
      await open.run(phase);
      mark(`${Date.now()} end ${t.name} ${limit.label} ${n} ${phase}`);
      const wall = (performance.now() - start) / 1000;
      const samples = heapSamples(open.heapDir, from, Date.now());
      const liveHeap = Math.max(0, ...samples.map((x) => x.heapUsed));
      if (process.env.BENCH_SCALE_HEAP_LOG) console.log(`    ${t.name} ${phase}: ${JSON.stringify(samples)}`);
      const program = process.cpuUsage(programBefore);
      const costs = watch.take();
      const now = { engine: costs.engine!.cpuSeconds, provider: costs.provider!.cpuSeconds };
      const { statuses, treeCpuSeconds } = await server.counts();
      const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
      const refused = statuses["429"] ?? 0;
      const cpu = {
        engine: now.engine - before.engine,
        program: (program.user + program.system) / 1e6,
        provider: now.provider - before.provider,
        server: treeCpuSeconds,
      };
      before = now;
      phases[phase] = { wall, requests, refused, liveHeap, cpu };
      if (!t.floor && (phase === "up" || phase === "destroy")) await checkLive(server, n, phase);
    }
  } finally {
    watch.stop();
    await open.close();
    if (limit.rps) await adminCall(server, "DELETE", "/orgs/demo/rate-limit");
  }
  return { n, limit, target: t, phases, rssBytes: watch.take().provider!.peakRssBytes };
}

// --- the report ---------------------------------------------------------------------------------

const secs = (x: number) => `${x.toFixed(1)} s`;
const mib = (b: number) => (b ? `${(b / 1024 / 1024).toFixed(1)} MiB` : "-");
const words = (t: Target, p: Phase) => (t.engine === "opentofu" ? TOFU_WORDS[p] : p);

function line(r: Row): string {
  const cells = PHASES.map((p) => {
    const ph = r.phases[p];
    let cell = `${words(r.target, p)} ${secs(ph.wall)}, ${ph.requests} req, ${ph.refused} 429`;
    if (r.limit.rps && ph.requests) cell += `, floor ${secs(ph.requests / r.limit.rps)}`;
    if (ph.liveHeap) cell += `, live heap ${mib(ph.liveHeap)}`;
    if (ph.requests) cell += `, server CPU ${secs(ph.cpu.server)}`;
    return cell;
  });
  return `N=${r.n} limit ${r.limit.label} ${r.target.name}: ${cells.join("; ")}; provider peak RSS ${mib(r.rssBytes)}, CPU ${secs(providerCpu(r))}`;
}

function find(rows: Row[], n: number, limit: string, name: string): Row | undefined {
  return rows.find((r) => r.n === n && r.limit.label === limit && r.target.name === name);
}

function print(rows: Row[]): void {
  const ns = [...new Set(rows.map((r) => r.n))];
  console.log(
    `\nPer run and phase: wall time, API requests answered, 429s among them; for a limited run the ` +
      `floor requests / rate and wall / floor (parallelism ${PARALLEL}; deploys take ${PROVISION_MS} ms; ` +
      `the package as built into dist/${SKIP_CHECKPOINTS ? "; Pulumi checkpoints skipped" : ""})\n`,
  );
  console.log(`| N | limit | front end | ${PHASES.join(" | ")} | provider peak RSS | live heap after up |`);
  console.log(`|---:|---|---|${PHASES.map(() => "---|").join("")}---:|---:|`);
  for (const r of rows) {
    const cells = PHASES.map((p) => {
      const ph = r.phases[p];
      let cell = `${secs(ph.wall)} · ${ph.requests} req · ${ph.refused} 429`;
      if (r.limit.rps && ph.requests) {
        const floor = ph.requests / r.limit.rps;
        cell += ` · floor ${secs(floor)} · **${(ph.wall / floor).toFixed(2)}x**`;
      }
      return cell;
    });
    console.log(
      `| ${r.n} | ${r.limit.label} | ${r.target.name} | ${cells.join(" | ")} | ${mib(r.rssBytes)} | ${mib(r.phases.up.liveHeap)} |`,
    );
  }

  console.log(
    `\nCPU seconds per phase (same runs): the engine's process · the bench's own (Pulumi's inline ` +
      `program) · the provider processes · the reference server with its sandboxes\n`,
  );
  console.log(`| N | limit | front end | ${PHASES.join(" | ")} |`);
  console.log(`|---:|---|---|${PHASES.map(() => "---:|").join("")}`);
  for (const r of rows)
    console.log(
      `| ${r.n} | ${r.limit.label} | ${r.target.name} | ${PHASES.map((p) => {
        const c = r.phases[p].cpu;
        return [c.engine, c.program, c.provider, c.server].map(secs).join(" · ");
      }).join(" | ")} |`,
    );

  printMemory(rows, ns);

  console.log(`\nNo limit: each front end's wall time over its engine's floor (same N, same run)\n`);
  console.log(`| N | front end | ${PHASES.join(" | ")} |`);
  console.log(`|---:|---|${PHASES.map(() => "---|").join("")}`);
  for (const n of ns)
    for (const r of rows.filter((x) => x.n === n && x.limit.label === "none" && !x.target.floor)) {
      const floor = find(rows, n, "none", r.target.engine === "opentofu" ? "tofu floor" : "pulumi floor");
      if (!floor) continue;
      const cells = PHASES.map(
        (p) =>
          `${secs(r.phases[p].wall)} / ${secs(floor.phases[p].wall)} = **${(r.phases[p].wall / floor.phases[p].wall).toFixed(2)}x**`,
      );
      console.log(`| ${n} | ${r.target.name} | ${cells.join(" | ")} |`);
    }

  const limited = [...new Set(rows.filter((r) => r.limit.rps).map((r) => r.limit.label))];
  if (!limited.length) return;
  console.log(
    `\nUnder a limit, against the same N with none: 429s over requests, requests over the ` +
      `unlimited run's, and wall over requests / rate (per phase; phases of fewer than 50 requests ` +
      `are left out of the largest ratio: their time is the engine's)\n`,
  );
  console.log(
    `| N | limit | front end | 429s / requests | requests / unlimited | wall / floor (per phase) | largest | wall / max(floor, unlimited wall) (per phase) |`,
  );
  console.log(`|---:|---|---|---:|---:|---|---:|---|`);
  for (const n of ns)
    for (const label of limited)
      for (const r of rows.filter((x) => x.n === n && x.limit.label === label && !x.target.floor)) {
        const free = find(rows, n, "none", r.target.name);
        const total = (row: Row, k: "requests" | "refused") =>
          PHASES.reduce((a, p) => a + row.phases[p][k], 0);
        const ratios = PHASES.map((p) => {
          const ph = r.phases[p];
          return ph.requests ? ph.wall / (ph.requests / r.limit.rps!) : undefined;
        });
        const counted = PHASES.map((p, i) => (r.phases[p].requests >= 50 ? ratios[i] : undefined)).filter(
          (x): x is number => x !== undefined,
        );
        console.log(
          `| ${n} | ${label} | ${r.target.name} | ${((100 * total(r, "refused")) / Math.max(1, total(r, "requests"))).toFixed(1)} % | ` +
            `${free ? (total(r, "requests") / total(free, "requests")).toFixed(2) : "-"} | ` +
            `${PHASES.map((p, i) => `${words(r.target, p)} ${ratios[i] === undefined ? "-" : ratios[i]!.toFixed(2)}`).join(", ")} | ` +
            `${counted.length ? Math.max(...counted).toFixed(2) : "-"} | ` +
            `${PHASES.map((p) => {
              const ph = r.phases[p];
              const base = Math.max(ph.requests / r.limit.rps!, free?.phases[p].wall ?? 0);
              return `${words(r.target, p)} ${base ? (ph.wall / base).toFixed(2) : "-"}`;
            }).join(", ")} |`,
        );
      }
}

/**
 * Whether the provider's memory is flat in N: per front end and limit, the peak RSS and the live
 * heap after `up` at the smallest and the largest N, and what each grew by per object.
 */
function printMemory(rows: Row[], ns: number[]): void {
  const [lo, hi] = [Math.min(...ns), Math.max(...ns)];
  if (lo === hi) return;
  console.log(
    `\nProvider memory, N=${lo} to N=${hi}: peak RSS (a high-water mark, garbage included) and the ` +
      `live heap (heapUsed after full GCs) the provider process ends up with, the largest of the ` +
      `phase's provider processes; the growth per object\n`,
  );
  console.log(
    `| limit | front end | peak RSS | per object | live heap after up | per object | provider CPU |`,
  );
  console.log(`|---|---|---:|---:|---:|---:|---:|`);
  const perObject = (a: number, b: number) => `${((b - a) / (hi - lo) / 1024).toFixed(1)} KiB`;
  for (const small of rows.filter((r) => r.n === lo && r.rssBytes)) {
    const big = find(rows, hi, small.limit.label, small.target.name);
    if (!big?.rssBytes) continue;
    const [h0, h1] = [small.phases.up.liveHeap, big.phases.up.liveHeap];
    console.log(
      `| ${small.limit.label} | ${small.target.name} | ${mib(small.rssBytes)} → ${mib(big.rssBytes)} | ` +
        `${perObject(small.rssBytes, big.rssBytes)} | ` +
        (h0 && h1 ? `${mib(h0)} → ${mib(h1)} | ${perObject(h0, h1)} |` : "- | - |") +
        ` ${secs(providerCpu(small))} → ${secs(providerCpu(big))} |`,
    );
  }
}

// --- main ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const t0 = performance.now();
  const minutes = () => (performance.now() - t0) / 60_000;
  buildPackage();
  const limits = LIMITS.map(parseLimit);
  const pluginDir = builtPluginDir();
  const all = await targets(pluginDir);
  const server = await startServerChild(PROVISION_MS);
  const rows: Row[] = [];
  const done: { n: number; minutes: number }[] = [];
  try {
    for (const n of NS) {
      const last = done.at(-1);
      const expected = last ? last.minutes * (n / last.n) ** 1.2 : undefined;
      if (expected !== undefined && minutes() + expected > BUDGET_MIN) {
        console.log(
          `  N=${n} not run: expected to take ${expected.toFixed(0)} min (N=${last!.n} took ${last!.minutes.toFixed(0)} min), past the budget of ${BUDGET_MIN} min (--budget-min)`,
        );
        break;
      }
      const start = minutes();
      for (const limit of limits)
        for (const t of all) {
          // A floor makes no API requests: once per N.
          if (t.floor && limit.rps) continue;
          const row = await runOne(t, n, limit, server);
          rows.push(row);
          console.log(`  ${line(row)}`);
        }
      done.push({ n, minutes: minutes() - start });
    }
  } finally {
    server.stop();
    rmSync(pluginDir, { recursive: true, force: true });
  }
  print(rows);
  console.log(
    `\nMinutes per N: ${done.map((d) => `N=${d.n} ${d.minutes.toFixed(1)}`).join(", ")}; total ${minutes().toFixed(1)} min`,
  );
}

await main();
