/**
 * Start to handshake: the time from starting each plugin to the first line it prints, the line its
 * client waits for before it sends anything (go-plugin's handshake for OpenTofu, the port for the
 * Pulumi engine). OpenTofu starts its provider several times per command and the engine its plugin
 * for every command, so this is paid again and again. Measured for `terraform-provider-cws` and
 * `pulumi-resource-cws` as installed (`npm pack`, the tarball installed into an empty project,
 * the launchers of its node_modules/.bin), with Node's compile cache off as well as on, and as run
 * from this checkout (bin/, the TypeScript sources), beside the floor: the Go provider of
 * bench/tofu-floor. Each start is given what its client gives it (OpenTofu's magic cookie,
 * protocol version and client certificate; the engine's address).
 *
 * Wall time and CPU time (all the process's threads, from /proc, so Linux only for CPU) to the
 * line, median (min-max) of fresh processes started in turns; one untimed start of each first
 * (which fills the compile cache).
 *
 * Run: node bench/plugin-start.ts [--runs 15] [--installed DIR] (DIR: a project where the package
 * is installed already; without it the checkout is packed and installed first).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../scripts/repo-root.ts";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../provider/opentofu/serve.ts";
import { pluginCertificate } from "../provider/opentofu/tls-cert.ts";
import { installPackage, userEnv } from "./built-package.ts";
import { median } from "./median.ts";
import { ensureFloorProvider } from "./tofu-floor.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const RUNS = Number(arg("runs") ?? 15);

/** What OpenTofu puts in a provider's environment (go-plugin, automatic mutual TLS). */
const TOFU_ENV = {
  [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
  PLUGIN_PROTOCOL_VERSIONS: "6",
  PLUGIN_CLIENT_CERT: pluginCertificate().certPem,
};
/** The engine's address, the argument the engine starts its plugin with (not called at start). */
const ENGINE = "127.0.0.1:1";

interface Target {
  name: string;
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

interface Start {
  wallMs: number;
  cpuMs: number;
}

/** CPU time of every thread of `pid` so far, in ms (schedstat: nanoseconds on the CPU). */
function cpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "latin1").split(" ")[0]);
      } catch {
        // The thread ended.
      }
    }
  } catch {
    return NaN;
  }
  return ns / 1e6;
}

/** Starts the target, waits for its first line, then ends it. */
function startOnce(t: Target): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(t.cmd, t.args, { env: t.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let result: Start | undefined;
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (result || !out.includes("\n")) return;
      const wallMs = performance.now() - started;
      result = { wallMs, cpuMs: cpuMs(child.pid!) };
      child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (result) resolve(result);
      else reject(new Error(`${t.name} exited ${code} before its first line:\n${out}${err}`));
    });
  });
}

function targets(project: string, floor: string): Target[] {
  const installed = join(project, "node_modules", ".bin");
  const noCache = { NODE_DISABLE_COMPILE_CACHE: "1" };
  const list: Target[] = [];
  for (const [plugin, args, env] of [
    ["terraform-provider-cws", [], TOFU_ENV],
    ["pulumi-resource-cws", [ENGINE], {}],
  ] as const) {
    list.push(
      { name: `${plugin}, installed`, cmd: join(installed, plugin), args: [...args], env: userEnv(env) },
      {
        name: `${plugin}, installed, compile cache off`,
        cmd: join(installed, plugin),
        args: [...args],
        env: userEnv({ ...env, ...noCache }),
      },
      {
        name: `${plugin}, checkout`,
        cmd: join(REPO_ROOT, "bin", plugin),
        args: [...args],
        env: userEnv(env),
      },
    );
  }
  list.push({
    name: "floor: Go provider (terraform-plugin-framework)",
    cmd: floor,
    args: [],
    env: userEnv(TOFU_ENV),
  });
  return list;
}

const floor = await ensureFloorProvider();
const project = arg("installed") ?? (await installPackage());
const list = targets(project, floor);
for (const t of list) await startOnce(t); // fills the compile cache
const runs = new Map<string, Start[]>(list.map((t) => [t.name, []]));
for (let r = 0; r < RUNS; r++) {
  const order = r % 2 ? [...list].reverse() : list;
  for (const t of order) runs.get(t.name)!.push(await startOnce(t));
}

const fmt = (xs: number[]) =>
  Number.isNaN(xs[0])
    ? "n/a"
    : `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
console.log(
  `\nStart to handshake line (median (min-max) of ${RUNS} starts each, taken in turns; ${process.version}; installed: ${project})\n`,
);
console.log(`| plugin | wall | CPU |`);
console.log(`|---|---:|---:|`);
for (const t of list) {
  const xs = runs.get(t.name)!;
  console.log(`| ${t.name} | ${fmt(xs.map((x) => x.wallMs))} | ${fmt(xs.map((x) => x.cpuMs))} |`);
}
