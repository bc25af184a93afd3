/**
 * The guardrail cases every tool runs (test/fixtures/guardrails/guardrails.json is the one file):
 * each a small set of workloads and sandboxes, and what the rules must say of it, written once and
 * rendered as HCL, as a YAML program and as a TypeScript program of the dynamic provider.
 */
import type * as Sdk from "../../../sdk/index.ts";

export interface CaseResource {
  /** The HCL resource name and the Pulumi resource name (and the workload's name). */
  key: string;
  kind: "Workload" | "Sandbox";
  type?: "RENTAL" | "BM";
  resourceName?: string;
  region?: string;
  ttlSec?: number;
  projectId?: string;
}

export interface GuardrailCase {
  name: string;
  resources: CaseResource[];
  /** The rules it breaks with the resource each names (undefined: the whole stack). */
  mandatory: [rule: string, key?: string][];
  advisory: [rule: string, key?: string][];
}

/** A sandbox template of the reference server's seed (priced in the file's table). */
export const TEMPLATE = "tpl-ubuntu-headless";

/** A RENTAL workload, of project `ml` unless `projectId` is null. */
const rental = (key: string, resourceName: string, projectId: string | null = "ml"): CaseResource => ({
  key,
  kind: "Workload",
  type: "RENTAL",
  resourceName,
  projectId: projectId ?? undefined,
});

export const CASES: GuardrailCase[] = [
  {
    name: "within its limits",
    resources: [
      rental("web", "gpu-rental-small"),
      { key: "dev", kind: "Sandbox", ttlSec: 3600, projectId: "ml" },
    ],
    mandatory: [],
    advisory: [],
  },
  {
    name: "a disallowed resource name",
    resources: [rental("cpu", "cpu-rental-small")],
    mandatory: [
      ["cws-resource-table", "cpu"],
      ["cws-allowed-resource-names", "cpu"],
    ],
    advisory: [],
  },
  {
    name: "three allowed workloads over the GPU and cost ceilings",
    resources: [
      rental("a", "gpu-rental-medium"),
      rental("b", "gpu-rental-medium"),
      rental("c", "gpu-rental-medium"),
    ],
    mandatory: [["cws-gpus-per-stack"], ["cws-cost-per-stack"]],
    advisory: [],
  },
  {
    name: "a sandbox without a TTL",
    resources: [{ key: "forever", kind: "Sandbox", projectId: "ml" }],
    mandatory: [["cws-sandbox-ttl", "forever"]],
    advisory: [],
  },
  {
    name: "BM in a stack not named for it",
    resources: [
      {
        key: "train",
        kind: "Workload",
        type: "BM",
        resourceName: "bm-h100-8x",
        region: "us-east-1",
        projectId: "ml",
      },
    ],
    mandatory: [["cws-gpus-per-stack"], ["cws-cost-per-stack"], ["cws-bm-stacks", "train"]],
    advisory: [],
  },
  {
    name: "an advisory rule only",
    resources: [rental("web", "gpu-rental-small", null)],
    mandatory: [],
    advisory: [["cws-required-project", "web"]],
  },
];

const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ops@example";
const isBm = (r: CaseResource) => r.type === "BM";

/** The case as an HCL configuration (main.tf). */
export function hcl(c: GuardrailCase): string {
  const blocks = c.resources.map((r) => {
    const lines =
      r.kind === "Sandbox"
        ? [`name = "${r.key}"`, `template = "${TEMPLATE}"`]
        : [`type = "${r.type}"`, `name = "${r.key}"`, `image = "${isBm(r) ? "ubuntu-22.04" : "nginx:1.27"}"`];
    if (r.resourceName) lines.push(`resource_name = "${r.resourceName}"`);
    if (r.region) lines.push(`region = "${r.region}"`);
    if (r.ttlSec !== undefined) lines.push(`ttl_sec = ${r.ttlSec}`);
    if (r.projectId) lines.push(`project_id = "${r.projectId}"`);
    if (isBm(r)) lines.push("ssh_keys = [cws_ssh_key.ops.uid]");
    return `resource "cws_${r.kind.toLowerCase()}" "${r.key}" {\n  ${lines.join("\n  ")}\n}\n`;
  });
  const key = c.resources.some(isBm)
    ? `resource "cws_ssh_key" "ops" {\n  name = "ops"\n  public_key = "${PUBLIC_KEY}"\n}\n`
    : "";
  return `terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}\n\n${key}${blocks.join("\n")}`;
}

/** The case as a YAML program's resources section (the native plugin: `cws:index:<Kind>`). */
export function yamlProgram(c: GuardrailCase): string {
  const out = ["name: guardrails", "runtime: yaml", "resources:"];
  if (c.resources.some(isBm))
    out.push(
      "  ops:",
      "    type: cws:index:SshKey",
      "    properties:",
      "      name: ops",
      `      publicKey: ${PUBLIC_KEY}`,
    );
  for (const r of c.resources) {
    out.push(`  ${r.key}:`, `    type: cws:index:${r.kind}`, "    properties:", `      name: ${r.key}`);
    if (r.kind === "Sandbox") out.push(`      template: ${TEMPLATE}`);
    else out.push(`      type: ${r.type}`, `      image: ${isBm(r) ? "ubuntu-22.04" : "nginx:1.27"}`);
    if (r.resourceName) out.push(`      resourceName: ${r.resourceName}`);
    if (r.region) out.push(`      region: ${r.region}`);
    if (r.ttlSec !== undefined) out.push(`      ttlSec: ${r.ttlSec}`);
    if (r.projectId) out.push(`      projectId: ${r.projectId}`);
    if (isBm(r)) out.push("      sshKeys:", "        - ${ops.uid}");
  }
  return `${out.join("\n")}\n`;
}

/** The case as a TypeScript program of the dynamic provider (`pulumi-nodejs:dynamic/cws:<Kind>`). */
export function typescriptProgram(sdk: typeof Sdk, c: GuardrailCase): () => Promise<void> {
  return async () => {
    const key = c.resources.some(isBm)
      ? new sdk.SshKey("ops", { name: "ops", publicKey: PUBLIC_KEY })
      : undefined;
    for (const r of c.resources) {
      if (r.kind === "Sandbox")
        new sdk.Sandbox(r.key, { name: r.key, template: TEMPLATE, ttlSec: r.ttlSec, projectId: r.projectId });
      else
        new sdk.Workload(r.key, {
          type: r.type!,
          name: r.key,
          image: isBm(r) ? "ubuntu-22.04" : "nginx:1.27",
          resourceName: r.resourceName!,
          region: r.region,
          projectId: r.projectId,
          sshKeys: isBm(r) ? [key!.uid] : undefined,
        });
    }
  };
}
