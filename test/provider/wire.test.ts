/** provider/wire.ts: camelCase properties to the snake_case wire and back, with the stated renames. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  PublishBody,
  SandboxTemplate,
  SshKey,
  SshKeyCreate,
  Volume,
  VolumeCreate,
  Workload,
  WorkloadCreate,
  sandboxTimeoutViolation,
  TemplateCreate,
  WorkloadTemplate,
} from "../../api/index.ts";
import {
  failureOf,
  fromWire,
  propsFrom,
  serviceField,
  toInputWords,
  toWire,
  wireFieldToProperty,
  type WireName,
} from "../../provider/core/wire.ts";
import { renamesOf } from "../../provider/core/definition.ts";
import { DEFINITIONS } from "../../provider/registry.ts";

/** Each resource's renamed properties, from its definition. */
const RENAMED = Object.fromEntries(Object.entries(DEFINITIONS).map(([k, d]) => [k, renamesOf(d)])) as Record<
  "Workload" | "Sandbox" | "SandboxTemplate" | "Volume" | "SshKey" | "WorkloadTemplate",
  ReturnType<typeof renamesOf>
>;

describe("toWire and fromWire", () => {
  it("convert every key at every depth, leave experiment names alone and drop unset members", () => {
    const inputs = {
      resourceName: "gpu-rental-small",
      registryAuth: { server: "r.io", username: "u", password: "p" },
      volumes: [{ uid: "v1", mountPath: "/data", readOnly: true }],
      experiments: { "reserved-gpu": true },
      projectId: undefined,
    };
    const wire = {
      resource_name: "gpu-rental-small",
      registry_auth: { server: "r.io", username: "u", password: "p" },
      volumes: [{ uid: "v1", mount_path: "/data", read_only: true }],
      experiments: { "reserved-gpu": true },
    };
    expect(toWire(inputs)).toEqual(wire);
    expect(fromWire(wire)).toEqual({ ...inputs, projectId: undefined });
    expect(Object.keys(toWire(inputs))).not.toContain("project_id");
  });

  it("send a sandbox's template as image and its timeouts inside sandbox_config", () => {
    const body = toWire(
      { name: "box", template: "tpl-1", sshKeys: ["k1"], ttlSec: 3600, idleTimeoutSec: 600 },
      RENAMED.Sandbox,
    );
    expect(body).toEqual({
      name: "box",
      image: "tpl-1",
      ssh_keys: ["k1"],
      sandbox_config: { ttl_sec: 3600, idle_timeout_sec: 600 },
    });
    expect(WorkloadCreate.safeParse({ type: "SANDBOX", ...body }).success).toBe(true);
  });

  it("send an SSH key's publicKey as ssh_key", () => {
    expect(toWire({ name: "k", publicKey: "ssh-ed25519 AAAA" }, RENAMED.SshKey)).toEqual({
      name: "k",
      ssh_key: "ssh-ed25519 AAAA",
    });
  });
});

describe("propsFrom", () => {
  const record = {
    name: "web",
    resource: { name: "bm-h100-8x", display_name: "H100", gpu_count: 8 },
    bm_config: { region: "us-east-1", hostname: "web" },
    reservation_uid: "res-1",
    experiments: { "reserved-gpu": true },
    state: { status: "running", message: "ok", public_ip: null },
  };

  it("reads each property from its wire field, renamed ones from where the record keeps them", () => {
    const props = propsFrom(
      record,
      ["name", "resourceName", "region", "reservationUid", "inventory", "experiments", "projectId"],
      RENAMED.Workload,
    );
    expect(props).toEqual({
      name: "web",
      resourceName: "bm-h100-8x",
      region: "us-east-1",
      reservationUid: "res-1",
      inventory: { name: "bm-h100-8x", displayName: "H100", gpuCount: 8 },
      experiments: { "reserved-gpu": true },
    });
  });

  it("reads outputs from the state summary, its message as statusMessage", () => {
    expect(propsFrom(record, ["status", "statusMessage", "publicIp"], RENAMED.Workload)).toEqual({
      status: "running",
      statusMessage: "ok",
      publicIp: null,
    });
    const volume = { size: 512, state: { status: "registered", message: "waiting" } };
    expect(propsFrom(volume, ["sizeInMb", "size", "status", "statusMessage"], RENAMED.Volume)).toEqual({
      sizeInMb: 512,
      size: 512,
      status: "registered",
      statusMessage: "waiting",
    });
  });

  it("reads a sandbox's template, parent and timeouts from sandbox_config", () => {
    const sandbox = {
      image: "tpl-1",
      sandbox_config: {
        template_uid: "tpl-1",
        parent_workload_uid: "wl-0",
        ttl_sec: 60,
        idle_timeout_sec: 0,
      },
    };
    expect(
      propsFrom(sandbox, ["template", "forkFrom", "parentUid", "ttlSec", "idleTimeoutSec"], RENAMED.Sandbox),
    ).toEqual({ template: "tpl-1", forkFrom: "wl-0", parentUid: "wl-0", ttlSec: 60, idleTimeoutSec: 0 });
  });
});

describe("wire field names in failures", () => {
  it("name the program's property, with the resource's renames", () => {
    expect(wireFieldToProperty("vm_config.password")).toBe("vmConfig.password");
    expect(wireFieldToProperty("ports[1].routing")).toBe("ports[1].routing");
    expect(wireFieldToProperty("sandbox_config.ttl_sec", RENAMED.Sandbox)).toBe("ttlSec");
    expect(wireFieldToProperty("image", RENAMED.Sandbox)).toBe("template");
    expect(wireFieldToProperty("ssh_key", RENAMED.SshKey)).toBe("publicKey");
    expect(wireFieldToProperty("sandbox_config.ttl_sec")).toBe("sandboxConfig.ttlSec");
  });

  it("rewrite the wire names inside a message", () => {
    expect(failureOf(sandboxTimeoutViolation(60, 600)!, RENAMED.Sandbox)).toEqual({
      property: "idleTimeoutSec",
      reason: "idleTimeoutSec must be smaller than ttlSec when both are enabled",
    });
    expect(toInputWords("ssh_key key data must be base64", RENAMED.SshKey)).toBe(
      "publicKey key data must be base64",
    );
    expect(toInputWords("vm_config.password is required for VM workloads")).toBe(
      "vmConfig.password is required for VM workloads",
    );
  });

  it("tell which service field a sandbox input is sent in", () => {
    expect(serviceField("template", RENAMED.Sandbox)).toBe("image");
    expect(serviceField("idleTimeoutSec", RENAMED.Sandbox)).toBe("sandbox_config");
    expect(serviceField("sshKeys", RENAMED.Sandbox)).toBe("ssh_keys");
  });
});

/** The contract's schemas each resource's request bodies and records follow. */
const SCHEMAS: Record<keyof typeof RENAMED, { body: z.ZodType; record: z.ZodType }> = {
  Workload: { body: WorkloadCreate, record: Workload },
  Sandbox: { body: WorkloadCreate, record: Workload },
  SandboxTemplate: { body: PublishBody, record: SandboxTemplate },
  SshKey: { body: SshKeyCreate, record: SshKey },
  Volume: { body: VolumeCreate, record: Volume },
  WorkloadTemplate: { body: TemplateCreate, record: WorkloadTemplate },
};

/** Whether a dotted path names a field of a zod object (through optional and nullable). */
function hasPath(schema: z.ZodType, path: string): boolean {
  let cur: z.ZodType | undefined = schema;
  for (const part of path.split(".")) {
    while (cur instanceof z.ZodOptional || cur instanceof z.ZodNullable) cur = cur.unwrap() as z.ZodType;
    if (!(cur instanceof z.ZodObject)) return false;
    cur = cur.shape[part] as z.ZodType | undefined;
    if (!cur) return false;
  }
  return true;
}

describe("the definitions' wire names", () => {
  it("names only fields the contract has", () => {
    for (const [resource, renames] of Object.entries(RENAMED) as [
      keyof typeof RENAMED,
      Record<string, WireName>,
    ][]) {
      const { body, record } = SCHEMAS[resource];
      for (const [property, name] of Object.entries(renames)) {
        const bodyPath = typeof name === "string" ? name : name.body;
        const recordPath = typeof name === "string" ? name : name.record;
        if (bodyPath) expect(hasPath(body, bodyPath), `${resource}.${property} body ${bodyPath}`).toBe(true);
        if (recordPath)
          expect(hasPath(record, recordPath), `${resource}.${property} record ${recordPath}`).toBe(true);
      }
    }
  });
});
