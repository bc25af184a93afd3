/**
 * An integration test of the program in index.ts with Pulumi's Automation API and vitest: the
 * reference server runs in this process, a snapshot of the org's base state (the SSH key the
 * program expects) is saved once, and every test starts by restoring it (milliseconds), so no
 * test sees what another made and none needs a `destroy`. Each test's stack has a state backend
 * of its own in a temporary directory. See README.md.
 */
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation/index.js";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "pulumi-cws/server";
import program from "./index.ts";

const TOKEN = "demo-token";
const ADMIN_TOKEN = "admin-token";
const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ci@example";
/** Stacks' project dirs (and their state), under the project so that `pulumi-cws` resolves from them. */
const STACKS = fileURLToPath(new URL("./.cache/stacks/", import.meta.url));

let server: RunningServer;
let sshKeyUid: string;

async function request<T>(url: string, method: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
}
const api = <T>(method: string, path: string, body?: unknown) =>
  request<T>(`${server.baseUrl}/orgs/demo${path}`, method, TOKEN, body);
const admin = <T>(method: string, path: string, body?: unknown) =>
  request<T>(`${server.adminUrl}${path}`, method, ADMIN_TOKEN, body);

/** What the org holds, as the admin API lists it: names by kind. */
async function orgHolds() {
  const r = await admin<Record<string, { name: string }[]>>("GET", "/orgs/demo/resources");
  const names = (xs: { name: string }[]) => xs.map((x) => x.name).sort();
  return { workloads: names(r.workloads!), volumes: names(r.volumes!) };
}

/** A new stack of the program in a directory of its own, configured for the server. */
async function newStack(config: Record<string, string> = {}): Promise<Stack> {
  mkdirSync(STACKS, { recursive: true });
  const workDir = mkdtempSync(STACKS);
  const stack = await LocalWorkspace.createStack(
    { stackName: "test", projectName: "web-service", program },
    {
      workDir,
      projectSettings: { name: "web-service", runtime: "nodejs", backend: { url: `file://${workDir}` } },
      envVars: { PULUMI_CONFIG_PASSPHRASE: "test-only" },
    },
  );
  await stack.setAllConfig({
    "cws:baseUrl": { value: server.baseUrl },
    "cws:org": { value: "demo" },
    "cws:apiToken": { value: TOKEN, secret: true },
    sshKeyUid: { value: sshKeyUid },
    ...Object.fromEntries(Object.entries(config).map(([k, value]) => [k, { value }])),
  });
  return stack;
}

beforeAll(async () => {
  server = await startServer({ port: 0, provisionDelayMs: 20 });
  // The org's base state, saved once: what every test starts from.
  sshKeyUid = (await api<{ uid: string }>("POST", "/ssh-keys", { name: "ci", ssh_key: PUBLIC_KEY })).uid;
  await admin("PUT", "/snapshots/base");
});

afterAll(async () => {
  await server?.close();
  rmSync(STACKS, { recursive: true, force: true });
});

beforeEach(async () => {
  await admin("POST", "/snapshots/base/restore");
});

describe("the web service", () => {
  it("runs every replica with the org's key and a volume of its own", async () => {
    const stack = await newStack({ replicas: "2" });
    const up = await stack.up();
    expect(up.outputs.statuses!.value).toEqual(["running", "running"]);
    expect(up.outputs.urls!.value).toHaveLength(2);
    expect(await orgHolds()).toEqual({
      workloads: ["web-0", "web-1"],
      volumes: ["web-0-data", "web-1-data"],
    });
    for (const w of (await api<{ items: { uid: string }[] }>("GET", "/workloads")).items)
      expect((await api<{ ssh_keys: string[] }>("GET", `/workloads/${w.uid}`)).ssh_keys).toEqual([sshKeyUid]);
  });

  it("fails with the service's reason when the org cannot pay, and leaves nothing running", async () => {
    // The test before this one left two services: the restore took them away.
    expect(await orgHolds()).toEqual({ workloads: [], volumes: [] });
    await admin("POST", "/orgs/demo/credits", { balance: 0 });
    const stack = await newStack();
    await expect(stack.up()).rejects.toThrow(/WORKLOAD_INSUFFICIENT_CREDITS/);
    const workloads = (await api<{ items: { state: { status: string } }[] }>("GET", "/workloads")).items;
    expect(workloads.filter((w) => w.state.status === "running")).toEqual([]);
  });
});
