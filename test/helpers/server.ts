/**
 * The one way tests start a server.
 *
 * - `startTestServer(options)`: the reference server in this process, on a free port, with a short
 *   provisioning delay. `dataDir: true` and `sandboxRoot: true` give it fresh temporary directories
 *   that close() removes; restart() starts it again on the same directories.
 * - `startTestServer({ subprocess: true, ... })`: the same server as `cws serve` in a child process,
 *   as a user runs it (to kill it hard, or to measure its own memory).
 * - `useTestServer(options)`: one in-process server for the tests of a file (or describe block),
 *   started before them and closed after them; `each: "reset"` puts it back to its seed before
 *   each test, `each: "clear-faults"` only drops the faults a test injected.
 * - `startStubServer(handler)`: a bare HTTP server, for answers the reference server never gives
 *   (bad bodies, resets, slow or odd replies).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach } from "vitest";
import { startServer, type RunningServer, type ServerOptions } from "../../server/index.ts";
import { ADMIN_TOKEN, adminCall } from "./http.ts";
import { suiteValue } from "./suite.ts";

/** Provisioning delay of test servers unless a test asks for another (the server's own default is 300 ms). */
const PROVISION_DELAY_MS = 20;
const CLI = fileURLToPath(new URL("../../cli/cws.ts", import.meta.url));

export interface TestServerOptions extends Omit<ServerOptions, "port" | "dataDir" | "sandboxRoot"> {
  /** Directory of the database: a path, or true for a fresh temporary one. Default: state in memory. */
  dataDir?: string | true;
  /** Directory of the sandboxes: a path, or true for a fresh temporary one. Default: the server's own. */
  sandboxRoot?: string | true;
  subprocess?: false;
}

/** A reference server running in this process. */
export interface TestServer extends RunningServer {
  dataDir?: string;
  sandboxRoot?: string;
  /** Closes the server and removes the temporary directories made for it. */
  close(): Promise<void>;
  /** Closes the server, keeping its directories, and starts it again with the same options. */
  restart(): Promise<TestServer>;
}

/** `cws serve` in a child process: what its flags can say. */
export interface ServerProcessOptions {
  subprocess: true;
  /** --data-dir: a path, or true for a fresh temporary one. Default: state in memory. */
  dataDir?: string | true;
  host?: string;
  /** --seed: a seed file. */
  seed?: string;
  provisionDelayMs?: number;
  adminToken?: string;
  allowDemoTokens?: boolean;
  /** --rate-limit RPS[:BURST]. */
  rateLimit?: string;
  /** Environment variables of the process, beside those of this one (kept across restart). */
  env?: Record<string, string>;
  /**
   * A process group of its own, which close() kills whole once the process has ended (or after
   * GROUP_GRACE_MS of SIGTERM): what it started (sandboxes) goes with it whatever happened.
   */
  processGroup?: boolean;
}

/** How long a server in a process group of its own gets to stop its sandboxes after SIGTERM. */
const GROUP_GRACE_MS = 10_000;

/** SIGKILL to the process group `pid` leads; nothing if it is gone. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is gone
  }
}

/** A reference server running as `cws serve` in a child process. */
export interface ServerProcess {
  baseUrl: string;
  origin: string;
  adminUrl: string;
  port: number;
  dataDir?: string;
  /** The `cws serve` process. */
  process: ChildProcess;
  /** Stops the process (SIGTERM) if it still runs, and removes the temporary directories made for it. */
  close(): Promise<void>;
  /** Stops the process, keeping its directories, and starts it again with the same options. */
  restart(): Promise<ServerProcess>;
}

export function startTestServer(opts: ServerProcessOptions): Promise<ServerProcess>;
export function startTestServer(opts?: TestServerOptions): Promise<TestServer>;
export async function startTestServer(
  opts: TestServerOptions | ServerProcessOptions = {},
): Promise<TestServer | ServerProcess> {
  const made: string[] = [];
  try {
    const dataDir = opts.dataDir === true ? tempDir("cws-data-", made) : opts.dataDir;
    if (opts.subprocess) return await inChildProcess({ ...opts, dataDir }, made);
    const sandboxRoot = opts.sandboxRoot === true ? tempDir("cws-sandboxes-", made) : opts.sandboxRoot;
    const { subprocess: _inProcess, ...options } = opts;
    return await inThisProcess(
      { provisionDelayMs: PROVISION_DELAY_MS, ...options, port: 0, dataDir, sandboxRoot },
      made,
    );
  } catch (e) {
    removeDirs(made);
    throw e;
  }
}

function tempDir(prefix: string, made: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function removeDirs(dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

async function inThisProcess(options: ServerOptions, made: string[]): Promise<TestServer> {
  const server = await startServer(options);
  return {
    ...server,
    dataDir: options.dataDir,
    sandboxRoot: options.sandboxRoot,
    async close() {
      await server.close();
      removeDirs(made);
    },
    async restart() {
      await server.close();
      return inThisProcess(options, made);
    },
  };
}

async function inChildProcess(
  opts: ServerProcessOptions & { dataDir?: string },
  made: string[],
): Promise<ServerProcess> {
  const delay = opts.provisionDelayMs ?? PROVISION_DELAY_MS;
  const args = ["serve", "--port", "0", "--quiet", "--provision-delay-ms", String(delay)];
  if (opts.host) args.push("--host", opts.host);
  if (opts.dataDir) args.push("--data-dir", opts.dataDir);
  if (opts.seed) args.push("--seed", opts.seed);
  if (opts.adminToken) args.push("--admin-token", opts.adminToken);
  if (opts.allowDemoTokens) args.push("--allow-demo-tokens");
  if (opts.rateLimit) args.push("--rate-limit", opts.rateLimit);
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: opts.env ? { ...process.env, ...opts.env } : process.env,
    detached: opts.processGroup ?? false,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+\/v3)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code, signal) => reject(new Error(`cws serve exited (${code ?? signal}): ${err}`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    if (!opts.processGroup) return exited;
    const timer = setTimeout(() => killGroup(child.pid), GROUP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    killGroup(child.pid);
  };
  const origin = baseUrl.replace(/\/v3$/, "");
  return {
    baseUrl,
    origin,
    adminUrl: `${origin}/admin`,
    port: Number(new URL(origin).port),
    dataDir: opts.dataDir,
    process: child,
    async close() {
      await stop();
      removeDirs(made);
    },
    async restart() {
      await stop();
      return inChildProcess(opts, made);
    },
  };
}

export interface SuiteServerOptions extends TestServerOptions {
  /** Before each test: "reset" puts the server back to its seed (resources and faults dropped), "clear-faults" drops injected faults. */
  each?: "reset" | "clear-faults";
}

/** One server for the tests of the enclosing file or describe block: started before them, closed after them. */
export function useTestServer(opts: SuiteServerOptions = {}): TestServer {
  const { each, ...options } = opts;
  const server = suiteValue(
    "the suite's server",
    () => startTestServer(options),
    (s) => s.close(),
  );
  if (each) {
    beforeEach(async () => {
      const [method, path] = each === "reset" ? ["POST", "/reset"] : ["DELETE", "/faults"];
      const r = await adminCall(server, method, path, undefined, options.adminToken ?? ADMIN_TOKEN);
      if (r.status >= 300) throw new Error(`${method} /admin${path}: ${r.status} ${r.text}`);
    });
  }
  return server;
}

/** A bare HTTP server that records each request and lets `handler` answer it (n counts from 1). */
export interface StubServer {
  baseUrl: string;
  requests: { method: string; url: string; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
}

export async function startStubServer(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<StubServer> {
  const requests: StubServer["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    req.resume();
    handler(req, res, requests.length);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v3`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A stub's JSON answer. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
