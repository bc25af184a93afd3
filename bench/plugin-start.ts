/**
 * Start to handshake: the time from starting each plugin to the first line it prints, the line its
 * client waits for before it sends anything (go-plugin's handshake for OpenTofu, the port for the
 * Pulumi engine), and to its answer to a first call (OpenTofu's GetProviderSchema, the engine's
 * GetPluginInfo). OpenTofu starts its provider several times per command and the engine its plugin
 * for every command, so this is paid again and again. Measured for `terraform-provider-cws` and
 * `pulumi-resource-cws` as installed (`npm pack`, the tarball installed into an empty project,
 * the launchers of its node_modules/.bin), with Node's compile cache off as well as on, and as run
 * from this checkout (bin/, the TypeScript sources), and as released (the self-contained executable
 * of this machine's platform, taken out of the release's Pulumi tar.gz and OpenTofu/Terraform zip:
 * scripts/release/), beside the floor: the Go provider of bench/tofu-floor. Each start is given
 * what its client gives it (OpenTofu's magic cookie, protocol version and client certificate; the
 * engine's address). The size of each of the release's archives is printed too.
 *
 * Wall time and CPU time (all the process's threads, from /proc, so Linux only for CPU) to the
 * line, and wall time to the first answer, median (min-max) of fresh processes started in turns;
 * one untimed start of each first (which fills the compile cache).
 *
 * Run: node bench/plugin-start.ts [--runs 15] [--installed DIR] [--release DIR] [--compare DIR]
 * [--compare-checkout DIR] (--installed: a project where the package is installed already, without
 * it this checkout is packed and installed first; --release: a release directory (`npm run
 * release`), without it this checkout's release for this platform is built, or taken from the
 * cache when its inputs are unchanged; --compare and --compare-checkout: another version of the
 * package, installed in a project and as a checkout, measured in the same turns).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http2 from "node:http2";
import net from "node:net";
import tls from "node:tls";
import { join } from "node:path";
import { REPO_ROOT } from "../scripts/repo-root.ts";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../provider/opentofu/serve.ts";
import { pluginCertificate } from "../provider/opentofu/tls-cert.ts";
import { installPackage, userEnv } from "./built-package.ts";
import { median } from "./median.ts";
import { releasedExecutables } from "./released.ts";
import { ensureFloorProvider } from "./tofu-floor.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const RUNS = Number(arg("runs") ?? 15);

/** OpenTofu's side of go-plugin's automatic mutual TLS. */
const CLIENT_CERT = pluginCertificate();
/** What OpenTofu puts in a provider's environment (go-plugin, automatic mutual TLS). */
const TOFU_ENV = {
  [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
  PLUGIN_PROTOCOL_VERSIONS: "6",
  PLUGIN_CLIENT_CERT: CLIENT_CERT.certPem,
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
  answerMs: number;
}

/**
 * A TLS connection that trusts exactly the certificate of the handshake line (`der`), as go-plugin
 * does: the peer's certificate is compared byte for byte, not verified against a CA store, so
 * what the store holds (NODE_EXTRA_CA_CERTS adds the system's bundle to it on some machines) has
 * no say. Our client certificate goes with it (mutual TLS).
 */
function pinnedTls(socket: { path?: string; host?: string; port?: number }, der: Buffer): tls.TLSSocket {
  const conn = tls.connect({
    ...socket,
    key: CLIENT_CERT.keyPem,
    cert: CLIENT_CERT.certPem,
    servername: "localhost",
    ALPNProtocols: ["h2"],
    rejectUnauthorized: false,
  });
  conn.once("secureConnect", () => {
    if (!conn.getPeerCertificate().raw?.equals(der))
      conn.destroy(new Error("the provider's certificate is not the one of its handshake line"));
  });
  return conn;
}

/**
 * The first call a client makes, with an empty request, over HTTP/2 as gRPC sends it: to the
 * address of a go-plugin handshake line (mutual TLS with the plugin's certificate from the line)
 * or to the engine's plugin's port (plaintext). Resolves when the answer has come.
 */
function firstCall(line: string): Promise<void> {
  const fields = line.trim().split("|");
  const goPlugin = fields.length >= 5;
  const path = goPlugin
    ? "/tfplugin6.Provider/GetProviderSchema"
    : "/pulumirpc.ResourceProvider/GetPluginInfo";
  let session: http2.ClientHttp2Session;
  if (!goPlugin) session = http2.connect(`http://127.0.0.1:${fields[0]}`);
  else {
    const [, , network, address, , cert] = fields as [string, string, string, string, string, string?];
    const socket =
      network === "unix"
        ? { path: address }
        : { host: address.split(":")[0], port: Number(address.split(":")[1]) };
    session = http2.connect(`${cert ? "https" : "http"}://localhost`, {
      createConnection: () =>
        cert ? pinnedTls(socket, Buffer.from(cert, "base64")) : net.connect(socket as net.NetConnectOpts),
    });
  }
  return new Promise((resolve, reject) => {
    session.on("error", reject);
    const req = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
    });
    req.on("error", reject);
    req.on("data", () => {});
    req.on("end", () => {
      session.close();
      resolve();
    });
    req.end(Buffer.alloc(5));
  });
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

/** Starts the target, waits for its first line and for the answer to a first call, then ends it. */
function startOnce(t: Target): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(t.cmd, t.args, { env: t.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let result: Start | undefined;
    let failed: Error | undefined;
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (result || !out.includes("\n")) return;
      const wallMs = performance.now() - started;
      result = { wallMs, cpuMs: cpuMs(child.pid!), answerMs: NaN };
      firstCall(out.split("\n")[0]!).then(
        () => {
          result!.answerMs = performance.now() - started;
          child.kill("SIGKILL");
        },
        (e: Error) => {
          failed = e;
          child.kill("SIGKILL");
        },
      );
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (result && !failed) resolve(result);
      else
        reject(
          new Error(`${t.name} exited ${code} before it answered (${failed?.message ?? ""}):\n${out}${err}`),
        );
    });
  });
}

function targets(project: string, floor: string, released: { plugin: string; provider: string }): Target[] {
  const installed = join(project, "node_modules", ".bin");
  const noCache = { NODE_DISABLE_COMPILE_CACHE: "1" };
  const compare = arg("compare");
  const compareCheckout = arg("compare-checkout");
  const list: Target[] = [];
  for (const [plugin, args, env] of [
    ["terraform-provider-cws", [], TOFU_ENV],
    ["pulumi-resource-cws", [ENGINE], {}],
  ] as const) {
    const target = (name: string, cmd: string, extra: Record<string, string> = {}) =>
      list.push({ name: `${plugin}, ${name}`, cmd, args: [...args], env: userEnv({ ...env, ...extra }) });
    target("installed", join(installed, plugin));
    target("installed, compile cache off", join(installed, plugin), noCache);
    target("checkout", join(REPO_ROOT, "bin", plugin));
    target("released executable", plugin === "pulumi-resource-cws" ? released.plugin : released.provider);
    if (compare) target(`installed from ${compare}`, join(compare, "node_modules", ".bin", plugin));
    if (compareCheckout) target(`checkout ${compareCheckout}`, join(compareCheckout, "bin", plugin));
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
const released = await releasedExecutables(arg("release"));
const list = targets(project, floor, released);
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
console.log(`| plugin | to handshake, wall | to handshake, CPU | to first answer, wall |`);
console.log(`|---|---:|---:|---:|`);
for (const t of list) {
  const xs = runs.get(t.name)!;
  console.log(
    `| ${t.name} | ${fmt(xs.map((x) => x.wallMs))} | ${fmt(xs.map((x) => x.cpuMs))} | ${fmt(xs.map((x) => x.answerMs))} |`,
  );
}

console.log(`\nThe release's archives of this platform (the executable inside each is the same)\n`);
console.log(`| archive | size |`);
console.log(`|---|---:|`);
for (const [file, size] of released.sizes) console.log(`| ${file} | ${(size / 1e6).toFixed(1)} MB |`);
