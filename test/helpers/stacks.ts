/** Pulumi stacks pointed at a test server, and what the end-to-end tests read back from both. */
import type { ConfigMap, PulumiFn } from "@pulumi/pulumi/automation/index.js";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { offlineStack, type OfflineStack } from "../../scripts/offline-stack.ts";
import { pulumiRoot } from "../../scripts/toolchain/pulumi.ts";
import { admin, DEMO_TOKEN, type AdminServer, type ApiServer } from "./http.ts";

/** The stack configuration of a program that uses the server as `org`. */
export function stackConfig(server: ApiServer, org = "demo", token = DEMO_TOKEN): ConfigMap {
  return {
    "cws:baseUrl": { value: server.baseUrl },
    "cws:org": { value: org },
    "cws:apiToken": { value: token, secret: true },
  };
}

/** An offline stack of `program` configured for the server (and `config`). */
export async function cwsStack(
  server: ApiServer,
  projectName: string,
  program: PulumiFn,
  config: ConfigMap = {},
  env?: Record<string, string>,
): Promise<OfflineStack> {
  return offlineStack({ projectName, program, config: { ...stackConfig(server), ...config }, env });
}

export interface LiveResources {
  workloads: { uid: string; name: string; type: string; state?: { status: string } }[];
  volumes: { uid: string; name: string }[];
  ssh_keys: { uid: string; name: string }[];
  templates: { uid: string; name: string }[];
  sandbox_templates: { uid: string; name: string }[];
}

/** What the admin listing reports for an org with nothing left in it. */
export const EMPTY_ORG: LiveResources = {
  workloads: [],
  volumes: [],
  ssh_keys: [],
  templates: [],
  sandbox_templates: [],
};

/** Every live resource of an org, as the admin listing reports it. */
export function liveResources(server: AdminServer, org = "demo"): Promise<LiveResources> {
  return admin<LiveResources>(server, "GET", `/orgs/${org}/resources`);
}

/** Every live object of an org, of every kind: uid → name. */
export async function liveObjects(server: AdminServer, org = "demo"): Promise<Map<string, string>> {
  const l = await liveResources(server, org);
  const all = [...l.workloads, ...l.volumes, ...l.ssh_keys, ...l.templates, ...l.sandbox_templates];
  return new Map(all.map((o) => [o.uid, o.name]));
}

/** `pulumi stack export` as a user runs it (no --show-secrets), and every file of the backend. */
export function stateAsStored(s: OfflineStack): { exported: string; files: string } {
  const exported = execFileSync(join(pulumiRoot(), "bin", "pulumi"), ["stack", "export", "--stack", "dev"], {
    cwd: join(s.dir, "project"),
    env: { ...process.env, ...s.env },
    encoding: "utf8",
  });
  const files = readdirSync(join(s.dir, "state"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
    .join("\n");
  return { exported, files };
}

/** The error a promise rejects with, or undefined when it resolves. */
export function failureOf(p: Promise<unknown>): Promise<Error | undefined> {
  return p.then(
    () => undefined,
    (e: Error) => e,
  );
}
