/**
 * Workload (RENTAL, VM, BM). Which fields the service takes for which type, and what a change of
 * each does (update, update that redeploys, replace), is WORKLOAD_FIELDS in api/: the service
 * fields' change kinds come from there. The provider's own inputs are deploy, suspended (RENTAL),
 * readyTimeoutSec and adoptUid.
 */
import { z } from "zod";
import {
  InventoryResource,
  REDEPLOY_EXEMPT,
  WORKLOAD_FIELDS,
  WORKLOAD_SERVICE_FIELDS,
  Workload,
  WorkloadCreate,
  WorkloadStateSummary,
  type WorkloadStatus,
} from "../../../api/index.ts";
import { ADOPT_UID, readyTimeout, type Definition, type InputDef } from "../../core/definition.ts";
import { portsNormaliser, sortedStrings, type Normaliser } from "../../core/diff.ts";
import { DEFAULT_READY_TIMEOUT_SEC } from "../../core/timeouts.ts";
import type { Props } from "../../core/types.ts";
import { snakeToCamel } from "../../core/wire.ts";
import { RESOURCE_NAME_WIRE, workloadOutputs } from "../../core/workloads.ts";
import { validateWorkload } from "./validate.ts";

const volumes: Normaliser = (v) =>
  Array.isArray(v)
    ? (v as Props[])
        .map((m) => ({ uid: m.uid, mountPath: m.mountPath, readOnly: m.readOnly ?? false }))
        .sort((a, b) => String(a.uid).localeCompare(String(b.uid)))
    : v;

/** Each service field: what it is, for which types, and anything else it needs. */
const FIELDS: Record<(typeof WORKLOAD_SERVICE_FIELDS)[number], Partial<InputDef> & { description: string }> =
  {
    type: {
      type: z.enum(["RENTAL", "VM", "BM"]),
      description: "RENTAL (a container), VM or BM; a sandbox is the Sandbox resource.",
      required: true,
    },
    name: { description: "Lowercase letters, digits and hyphens; at most 32.", required: true },
    image: {
      description: "RENTAL: a container image; VM and BM: an image name (getVmImages, getBmImages).",
      required: true,
    },
    resource_name: {
      description: "The inventory resource, e.g. gpu-rental-small, vm-standard or bm-h100-8x.",
      required: true,
      wire: RESOURCE_NAME_WIRE,
      languageNames: { python: "resource_name_" },
    },
    // The record reports a BM workload's region inside bm_config.
    region: {
      description: "BM only, required there: an active region (getRegions).",
      wire: { record: "bm_config.region" },
    },
    reservation_uid: { description: "VM and BM: an ACTIVE reservation." },
    envs: { description: "RENTAL only: environment variables." },
    ports: {
      description: "RENTAL and VM: 1024-65535; VM takes TCP or UDP; at most 10 DIRECT.",
      normalise: portsNormaliser(true),
    },
    commands: { description: "RENTAL only: the container's command." },
    args: { description: "RENTAL only: the container's arguments." },
    registry_auth: {
      description: "RENTAL only: private registry credentials; removing them clears them on the service.",
      secret: true,
    },
    ssh_keys: { description: "SshKey uids; BM requires at least one.", normalise: sortedStrings },
    volumes: { description: "RENTAL only: volumes to mount.", normalise: volumes },
    vm_config: {
      description: "VM only, required there: the password (at least 4 characters).",
      secret: true,
    },
    bm_config: { description: "BM only: the RFC 1123 hostname (at most 63), by default the name." },
    project_id: { description: "The project; removing it removes the workload from its project." },
    experiments: { description: "RENTAL and VM: feature switches (reserved-gpu, persistent-workload)." },
  };

const serviceInputs = Object.fromEntries(
  WORKLOAD_SERVICE_FIELDS.map((f): [string, InputDef] => {
    const field = WORKLOAD_FIELDS[f] as { change: InputDef["change"]; writeOnly?: readonly string[] };
    return [
      snakeToCamel(f),
      {
        type: WorkloadCreate.shape[f] as z.ZodType,
        change: field.change,
        writeOnly: field.writeOnly,
        ...FIELDS[f],
      },
    ];
  }),
);

const state = WorkloadStateSummary.shape;

export const definition: Definition = {
  name: "Workload",
  what: "workload",
  description: "A RENTAL container, VM or BM server on the Compute Workload Service.",
  inputs: {
    ...serviceInputs,
    deploy: {
      type: z.boolean(),
      description:
        "false registers the workload without deploying it (default true); switching to true deploys it. true to false is refused: use suspended, or delete it.",
      change: "update",
      default: true,
    },
    suspended: {
      type: z.boolean(),
      description: "RENTAL only: true suspends the workload, false deploys it again.",
      change: "update",
      default: false,
    },
    readyTimeoutSec: readyTimeout("running", DEFAULT_READY_TIMEOUT_SEC),
    adoptUid: ADOPT_UID,
  },
  outputs: {
    uid: { type: Workload.shape.uid, description: "The workload's uid (its id)." },
    ...workloadOutputs,
    publicIp: {
      type: z.string(),
      description: "VM and BM: the public IP.",
      wire: { record: "state.public_ip" },
    },
    readyReplicas: {
      type: state.ready_replicas,
      description: "Replicas running.",
      wire: { record: "state.ready_replicas" },
    },
    totalReplicas: {
      type: state.total_replicas,
      description: "Replicas wanted.",
      wire: { record: "state.total_replicas" },
    },
    costPerHour: { type: Workload.shape.cost_per_hour, description: "USD per hour." },
    revision: { type: Workload.shape.revision, description: "Changes with every redeploy." },
    inventory: {
      type: InventoryResource,
      description: "The inventory resource the workload runs on.",
      wire: { record: "resource" },
    },
    createdAt: { type: Workload.shape.created_at, description: "When it was created." },
    updatedAt: { type: Workload.shape.updated_at, description: "When it was last changed." },
  },
  validate: validateWorkload,
  // A field that redeploys is a plain update while the workload is not deployed.
  redeploys: (olds) =>
    olds.status === undefined
      ? olds.deploy !== false
      : !REDEPLOY_EXEMPT.includes(olds.status as WorkloadStatus),
  // A volume is mounted on one workload at a time: the old workload must let go of it first.
  deleteBeforeReplace: (olds, news) =>
    [olds, news].some((p) => Array.isArray(p.volumes) && p.volumes.length > 0),
  notReady: "was registered but did not come up",
  // Refresh also reads a workload in error as `deploy: false`; up deploys it again.
  broken: ["error"],
  example: {
    type: "RENTAL",
    name: "web",
    image: "nginx:1.27",
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
  },
};
