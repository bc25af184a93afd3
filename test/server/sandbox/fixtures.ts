/* eslint-disable @typescript-eslint/no-explicit-any */
/** What the sandbox API tests make and run: sandbox bodies, deployed sandboxes, exec, tickets, host PIDs. */
import * as fs from "node:fs";
import { expect } from "vitest";
import { call, type ApiServer, type Res } from "../../helpers/http.ts";
import { create, waitForStatus } from "../fixtures.ts";

let seq = 0;
export const uniq = (p: string) => `${p}-${++seq}`;

export const headless = (over: Record<string, unknown> = {}) => ({
  type: "SANDBOX",
  name: uniq("sb"),
  image: "tpl-ubuntu-headless",
  ...over,
});

/** waitForStatus with a sandbox's timings: 20 s by default, and a sandbox in error fails the wait. */
export function waitState(s: ApiServer, uid: string, status: string, timeoutMs = 20_000): Promise<any> {
  return waitForStatus(s, uid, status, { timeoutMs, intervalMs: 25, failOnError: true });
}

/** Registers and deploys a sandbox, waits for running; returns its UID. */
export async function deploySandbox(
  s: ApiServer,
  over: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<string> {
  const w = await create(s, headless(over));
  const d = await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`, undefined, { headers });
  if (d.status !== 200) throw new Error(`deploy failed: ${d.status} ${d.text}`);
  await waitState(s, w.uid, "running");
  return w.uid;
}

/** The API path of a demo workload, or of one of its operations. */
export function sb(uid: string, op = ""): string {
  return `/orgs/demo/workloads/${uid}${op ? `/${op}` : ""}`;
}

export async function exec(
  s: ApiServer,
  uid: string,
  cmd: string,
  headers: Record<string, string> = {},
): Promise<Res> {
  return call(s, "POST", sb(uid, "exec"), { cmd, timeout_sec: 30 }, { headers });
}

/** Runs cmd, expects exit code 0, returns stdout. */
export async function sh(s: ApiServer, uid: string, cmd: string): Promise<string> {
  const r = await exec(s, uid, cmd);
  expect(r.status, r.text).toBe(200);
  expect(r.body.code, `${cmd}: ${r.text}`).toBe(0);
  return r.body.stdout as string;
}

/** Mints an access ticket for a workload. */
export async function ticket(
  s: ApiServer,
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
