/* eslint-disable @typescript-eslint/no-explicit-any */
/** What the server's tests make through the API: request bodies, workloads, SSH keys, templates, waits. */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { OpenApiDocument } from "../../server/openapi/document.ts";
import type { TestServer } from "../helpers/server.ts";
import { call, DEMO_TOKEN, type ApiServer } from "../helpers/http.ts";
import { waitFor } from "../helpers/wait.ts";

export const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx test@cws";

export interface WaitForStatus {
  org?: string;
  token?: string;
  /** Default 3 s. */
  timeoutMs?: number;
  /** Default 10 ms. */
  intervalMs?: number;
  /** A workload in error fails the wait at once (unless error is the status waited for). */
  failOnError?: boolean;
}

/** Polls a workload's state until it has `status`; returns that state. */
export async function waitForStatus(
  s: ApiServer,
  uid: string,
  status: string,
  { org = "demo", token = DEMO_TOKEN, timeoutMs = 3000, intervalMs = 10, failOnError }: WaitForStatus = {},
): Promise<any> {
  let last: any;
  try {
    return await waitFor(
      async () => {
        last = (await call(s, "GET", `/orgs/${org}/workloads/${uid}/state`, undefined, { token })).body;
        if (last.status === status) return last;
        if (failOnError && last.status === "error" && status !== "error") throw new Error("in error");
        return undefined;
      },
      `workload ${uid} to reach ${status}`,
      { timeoutMs, intervalMs },
    );
  } catch (e) {
    if (last === undefined) throw e;
    throw new Error(`workload ${uid} did not reach ${status}; last state ${JSON.stringify(last)}`);
  }
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

/** Creates an SSH key (PUBLIC_KEY) named `name`; returns its UID. */
export async function createSshKey(
  s: ApiServer,
  name = "k",
  token = DEMO_TOKEN,
  org = "demo",
): Promise<string> {
  const r = await call(s, "POST", `/orgs/${org}/ssh-keys`, { name, ssh_key: PUBLIC_KEY }, { token });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.uid;
}

/** Creates a volume of the demo org for RENTAL workloads; returns its UID. */
export async function createVolume(s: ApiServer, name: string, sizeInMb: number): Promise<string> {
  const r = await call(s, "POST", "/orgs/demo/volumes", {
    name,
    size_in_mb: sizeInMb,
    resource_name: "gpu-rental-small",
  });
  if (r.status !== 201) throw new Error(`volume: ${r.status} ${r.text}`);
  return r.body.uid;
}

/** A BM create body with an SSH key of its own. */
export async function bm(s: ApiServer, over: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const key = await createSshKey(s, `bm-key-${Math.random().toString(36).slice(2, 6)}`);
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

/** Registers a workload; returns the operation response. */
export async function create(s: ApiServer, body: unknown, org = "demo", token = DEMO_TOKEN): Promise<any> {
  const r = await call(s, "POST", `/orgs/${org}/workloads`, body, { token });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Registers and deploys a workload of the demo org, and waits for it to run. */
export async function deployed(s: ApiServer, body: unknown): Promise<any> {
  const w = await create(s, body);
  const d = await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
  if (d.status !== 200) throw new Error(`deploy failed: ${d.status} ${d.text}`);
  await waitForStatus(s, w.uid, "running");
  return w;
}

/** Puts a USER sandbox template straight into the store (the API makes them only by publishing a sandbox). */
export function putSandboxTemplate(
  s: TestServer,
  t: { uid: string; org: string; status: "PENDING" | "READY" | "FAILED"; name?: string },
): string {
  const now = new Date().toISOString();
  s.context.store.sandboxTemplates.put({
    uid: t.uid,
    org: t.org,
    name: t.name ?? t.uid,
    display_name: t.name ?? t.uid,
    description: "",
    kind: "USER",
    status: t.status,
    resource_name: "sandbox-small",
    cost_per_hour: 0.04,
    frozen_cost_per_hour: 0.004,
    desktop: false,
    created_at: now,
    updated_at: now,
  });
  return t.uid;
}

/** The document `s` serves, and an Ajv holding its components (`doc#/components/schemas/<name>`). */
export async function servedDocument(s: ApiServer): Promise<{ doc: OpenApiDocument; ajv: Ajv2020 }> {
  const doc = (await call<OpenApiDocument>(s, "GET", "/openapi.json")).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: "doc", components: doc.components });
  return { doc, ajv };
}
