/* eslint-disable @typescript-eslint/no-explicit-any */
/** Helpers of the reference-server conformance tests: an in-process server and a tiny JSON caller. */
import { startServer, type ServerOptions } from "../../server/index.ts";

export type TestServer = Awaited<ReturnType<typeof startServer>>;

export const DEMO = "demo-token";
export const OTHER = "other-token";
export const ADMIN = "admin-token";
export const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx test@cws";

export function start(opts: ServerOptions = {}): Promise<TestServer> {
  return startServer({ port: 0, provisionDelayMs: 20, ...opts });
}

export interface Res<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** A request to the API (`path` after /v3); JSON in, JSON (or text) out. */
export async function call<T = any>(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
  opts: { token?: string | null; headers?: Record<string, string>; raw?: string } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? DEMO : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined = opts.raw;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${s.baseUrl}${path}`, { method, headers, body: payload });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("application/json") && text) parsed = JSON.parse(text);
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

export async function adminCall<T = any>(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
  token = ADMIN,
): Promise<Res<T>> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${s.adminUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text) as T,
    text,
    headers: res.headers,
  };
}

/** Expects an error body with this status and reason; returns the message. */
export function expectError(res: Res, status: number, reason: string): string {
  if (res.status !== status || res.body?.reason !== reason) {
    throw new Error(`expected ${status} ${reason}, got ${res.status} ${res.text}`);
  }
  if (typeof res.body.error !== "string" || res.body.error.length === 0)
    throw new Error(`error message missing: ${res.text}`);
  return res.body.error as string;
}

export async function waitForStatus(
  s: TestServer,
  uid: string,
  status: string,
  org = "demo",
  token = DEMO,
  timeoutMs = 3000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await call(s, "GET", `/orgs/${org}/workloads/${uid}/state`, undefined, { token })).body;
    if (last.status === status) return last;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`workload ${uid} did not reach ${status}; last state ${JSON.stringify(last)}`);
}

export const rental = (over: Record<string, unknown> = {}) => ({
  type: "RENTAL",
  name: "web",
  image: "nginx:1.27",
  resource_name: "gpu-rental-small",
  ports: [{ port: 8080 }],
  ...over,
});

export const vm = (over: Record<string, unknown> = {}) => ({
  type: "VM",
  name: "vm",
  image: "ubuntu-22.04",
  resource_name: "vm-standard",
  vm_config: { password: "secret-pass" },
  ...over,
});

export async function sshKey(s: TestServer, name = "k", token = DEMO, org = "demo"): Promise<string> {
  const r = await call(s, "POST", `/orgs/${org}/ssh-keys`, { name, ssh_key: PUBLIC_KEY }, { token });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.uid;
}

export async function bm(
  s: TestServer,
  over: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const key = await sshKey(s, `bm-key-${Math.random().toString(36).slice(2, 6)}`);
  return {
    type: "BM",
    name: "metal",
    image: "ubuntu-22.04-cuda",
    resource_name: "bm-h100-8x",
    region: "us-east-1",
    ssh_keys: [key],
    ...over,
  };
}

export async function create(s: TestServer, body: unknown, org = "demo", token = DEMO): Promise<any> {
  const r = await call(s, "POST", `/orgs/${org}/workloads`, body, { token });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}

export async function deployed(s: TestServer, body: unknown): Promise<any> {
  const w = await create(s, body);
  const d = await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
  if (d.status !== 200) throw new Error(`deploy failed: ${d.status} ${d.text}`);
  await waitForStatus(s, w.uid, "running");
  return w;
}
