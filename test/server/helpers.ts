/* eslint-disable @typescript-eslint/no-explicit-any */
/** Helpers of the reference-server conformance tests: workload bodies, create, deploy, wait. */
import type { ServerOptions } from "../../server/index.ts";
import { call, type Res } from "../helpers/http.ts";
import { ADMIN_TOKEN, DEMO_TOKEN, OTHER_TOKEN, startTestServer, type TestServer } from "../helpers/server.ts";

export type { TestServer };
export { adminCall, call, type Res } from "../helpers/http.ts";

export const DEMO = DEMO_TOKEN;
export const OTHER = OTHER_TOKEN;
export const ADMIN = ADMIN_TOKEN;
export const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx test@cws";

export function start(opts: ServerOptions = {}): Promise<TestServer> {
  return startTestServer(opts);
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

/** Polls a workload's state until it has `status`; with failOnError, a workload in error fails at once. */
export async function waitForStatus(
  s: TestServer,
  uid: string,
  status: string,
  org = "demo",
  token = DEMO,
  timeoutMs = 3000,
  opts: { intervalMs?: number; failOnError?: boolean } = {},
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await call(s, "GET", `/orgs/${org}/workloads/${uid}/state`, undefined, { token })).body;
    if (last.status === status) return last;
    if (opts.failOnError && last.status === "error" && status !== "error") break;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10));
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
