/**
 * The properties of every resource as the plugin's schema and the TypeScript surface name them:
 * camelCase inputs and outputs, each typed by the api/ contract schema it maps to. Rules
 * (what updates, redeploys or replaces) stay in the resource modules; this is names and types.
 */
import { z } from "zod";
import {
  InventoryResource,
  RESOURCE_SECRETS,
  Port,
  SandboxTemplate,
  SshKey,
  Timestamp,
  Url,
  Volume,
  Workload,
  WorkloadCreate,
  WorkloadStateSummary,
  WorkloadTemplate,
} from "../../api/index.ts";
import { fromWireKey } from "./zod-types.ts";

export type ZodAny = z.ZodType;

export interface ResourceProperties {
  description: string;
  inputs: Record<string, ZodAny>;
  /** Inputs a program must give. */
  required: string[];
  /** Computed outputs (besides every input, which is an output too). */
  outputs: Record<string, ZodAny>;
  /** Inputs kept as Pulumi secrets in state. */
  secrets: string[];
}

/** `{camelKey: schema}` for the listed wire fields of a zod object. */
function wire(obj: z.ZodObject, keys: string[]): Record<string, ZodAny> {
  return Object.fromEntries(keys.map((k) => [fromWireKey(k), obj.shape[k] as ZodAny]));
}

const seconds = z.number().int();
const adoptUid = z.string();
const createdUpdated = { createdAt: Timestamp, updatedAt: Timestamp };
const state = WorkloadStateSummary.shape;

export const RESOURCE_PROPERTIES: Record<string, ResourceProperties> = {
  Workload: {
    description: "A RENTAL container, VM or BM server on the Compute Workload Service.",
    inputs: {
      ...wire(
        WorkloadCreate,
        Object.keys(WorkloadCreate.shape).filter((k) => k !== "sandbox_config"),
      ),
      deploy: z.boolean(),
      suspended: z.boolean(),
      readyTimeoutSec: seconds,
      adoptUid,
    },
    required: ["type", "name", "image", "resourceName"],
    outputs: {
      uid: Workload.shape.uid,
      status: state.status,
      statusMessage: state.message,
      urls: z.array(Url),
      publicIp: z.string(),
      sshPort: z.number().int(),
      readyReplicas: state.ready_replicas,
      totalReplicas: state.total_replicas,
      costPerHour: Workload.shape.cost_per_hour,
      revision: Workload.shape.revision,
      inventory: InventoryResource,
      ...createdUpdated,
    },
    secrets: [...RESOURCE_SECRETS.Workload],
  },
  Sandbox: {
    description:
      "An isolated Linux environment made from a sandbox template, or forked from another sandbox.",
    inputs: {
      name: z.string(),
      template: z.string(),
      forkFrom: z.string(),
      resourceName: z.string(),
      projectId: z.string(),
      sshKeys: z.array(z.string()),
      ports: z.array(Port),
      ttlSec: seconds,
      idleTimeoutSec: seconds,
      frozen: z.boolean(),
      readyTimeoutSec: seconds,
      adoptUid,
    },
    required: ["name"],
    outputs: {
      uid: Workload.shape.uid,
      status: state.status,
      statusMessage: state.message,
      urls: z.array(Url),
      sshPort: z.number().int(),
      costPerHour: Workload.shape.cost_per_hour,
      frozenCostPerHour: z.number(),
      templateUid: z.string(),
      parentUid: z.string(),
      revision: Workload.shape.revision,
      ...createdUpdated,
    },
    secrets: [],
  },
  SandboxTemplate: {
    description:
      "A USER sandbox template published from a running sandbox; new sandboxes start with its files.",
    inputs: {
      name: SandboxTemplate.shape.name,
      sourceSandbox: z.string(),
      displayName: SandboxTemplate.shape.display_name,
      description: SandboxTemplate.shape.description,
      readyTimeoutSec: seconds,
    },
    required: ["name", "sourceSandbox"],
    outputs: {
      uid: SandboxTemplate.shape.uid,
      kind: SandboxTemplate.shape.kind,
      status: SandboxTemplate.shape.status,
      templateResourceName: SandboxTemplate.shape.resource_name,
      costPerHour: SandboxTemplate.shape.cost_per_hour,
      frozenCostPerHour: SandboxTemplate.shape.frozen_cost_per_hour,
      ...createdUpdated,
    },
    secrets: [],
  },
  Volume: {
    description: "A persistent volume, mounted on RENTAL workloads through their `volumes` input.",
    inputs: {
      name: Volume.shape.name,
      sizeInMb: z.number().int(),
      resourceName: Volume.shape.resource_name,
      adoptUid,
    },
    required: ["name", "sizeInMb", "resourceName"],
    outputs: {
      uid: Volume.shape.uid,
      size: Volume.shape.size,
      status: z.string(),
      statusMessage: z.string(),
      costPerHour: Volume.shape.cost_per_hour,
      workloadUid: z.string(),
      mountPath: z.string(),
      pvcName: Volume.shape.pvc_name,
      ...createdUpdated,
    },
    secrets: [],
  },
  SshKey: {
    description: "An SSH public key that workloads and sandboxes reference by UID.",
    inputs: { name: SshKey.shape.name, publicKey: z.string(), adoptUid },
    required: ["name", "publicKey"],
    outputs: { uid: SshKey.shape.uid, publicKeyRaw: SshKey.shape.public_key_raw, ...createdUpdated },
    secrets: [],
  },
  WorkloadTemplate: {
    description: "A reusable workload template (not a sandbox template).",
    inputs: {
      name: WorkloadTemplate.shape.name,
      description: WorkloadTemplate.shape.description,
      type: z.enum(["RENTAL", "VM", "BM"]),
      manifest: z.record(z.string(), z.unknown()),
    },
    required: ["name", "type", "manifest"],
    outputs: {
      uid: WorkloadTemplate.shape.uid,
      visibility: WorkloadTemplate.shape.visibility,
      ...createdUpdated,
    },
    secrets: [...RESOURCE_SECRETS.WorkloadTemplate],
  },
};
