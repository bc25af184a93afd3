/* eslint-disable @typescript-eslint/no-explicit-any */
/** Helpers of the sandbox route tests: a server with real sandboxes, deploy, exec, WebSockets, /proc. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import WebSocket from "ws";
import { call, create, DEMO, start, waitForStatus, type Res, type TestServer } from "../helpers.ts";

export interface SandboxServer {
  s: TestServer;
  /** The server's sandboxRoot. */
  root: string;
  stop(): Promise<void>;
}

export async function startSandboxServer(): Promise<SandboxServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "cws-sbtest-"));
  const s = await start({ sandboxRoot: root });
  return {
    s,
    root,
    async stop() {
      await s.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

let seq = 0;
export const uniq = (p: string) => `${p}-${++seq}`;

export const headless = (over: Record<string, unknown> = {}) => ({
  type: "SANDBOX",
  name: uniq("sb"),
  image: "tpl-ubuntu-headless",
  ...over,
});

export function waitState(
  s: TestServer,
  uid: string,
  status: string,
  timeoutMs = 20_000,
  org = "demo",
  token = DEMO,
): Promise<any> {
  return waitForStatus(s, uid, status, org, token, timeoutMs, { intervalMs: 25, failOnError: true });
}

/** Registers and deploys a sandbox, waits for running; returns its UID. */
export async function deploySandbox(
  s: TestServer,
  over: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<string> {
  const w = await create(s, headless(over));
  const d = await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`, undefined, { headers });
  if (d.status !== 200) throw new Error(`deploy failed: ${d.status} ${d.text}`);
  await waitState(s, w.uid, "running");
  return w.uid;
}

export function sb(uid: string, op = ""): string {
  return `/orgs/demo/workloads/${uid}${op ? `/${op}` : ""}`;
}

export async function exec(
  s: TestServer,
  uid: string,
  cmd: string,
  headers: Record<string, string> = {},
): Promise<Res> {
  return call(s, "POST", sb(uid, "exec"), { cmd, timeout_sec: 30 }, { headers });
}

/** Runs cmd, expects exit code 0, returns stdout. */
export async function sh(s: TestServer, uid: string, cmd: string): Promise<string> {
  const r = await exec(s, uid, cmd);
  expect(r.status, r.text).toBe(200);
  expect(r.body.code, `${cmd}: ${r.text}`).toBe(0);
  return r.body.stdout as string;
}

/** A WebSocket handshake's outcome: the open socket (status 101) or the refusal's status and body. */
export interface Handshake {
  status: number;
  ws?: WebSocket;
  body?: any;
}

/** Opens a WebSocket; resolves with the open socket or the refused handshake's status and body. */
export function handshake(
  url: string,
  opts: { headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.headers, perMessageDeflate: false });
    const early: Buffer[] = [];
    ws.on("message", (d: Buffer) => early.push(d));
    (ws as any).early = early;
    ws.once("open", () => resolve({ status: 101, ws }));
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => {
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    ws.once("error", (e) => reject(e));
  });
}

/** Collects a WebSocket's data (including frames received before this call) until `done(text)`. */
export function readUntil(
  ws: WebSocket,
  done: (text: string) => boolean,
  timeoutMs = 10_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const early: Buffer[] = (ws as any).early ?? [];
    let text = Buffer.concat(early).toString("latin1");
    if (done(text)) return resolve(text);
    const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(text)}`)), timeoutMs);
    ws.on("message", (data: Buffer) => {
      text += data.toString("latin1");
      if (done(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
  });
}

export function wsUrl(s: TestServer, p: string): string {
  return `${s.baseUrl.replace(/^http/, "ws")}${p}`;
}

export async function ticket(
  s: TestServer,
  uid: string,
  body?: unknown,
  opts: { token?: string; org?: string; headers?: Record<string, string> } = {},
): Promise<string> {
  const r = await call(s, "POST", `/orgs/${opts.org ?? "demo"}/workloads/${uid}/access-tickets`, body, {
    token: opts.token,
    headers: opts.headers,
  });
  if (r.status !== 201) throw new Error(`ticket: ${r.status} ${r.text}`);
  return r.body.ticket as string;
}

/** Host PIDs of processes whose command line contains `marker`. */
export function hostPidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, "latin1").replace(/\0/g, " ");
      if (cmd.includes(marker)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

export { until } from "../../helpers/wait.ts";
