/**
 * Workload (RENTAL, VM, BM). Which fields the service takes for which type, and what a change of
 * each does (update, update that redeploys, replace), is WORKLOAD_FIELDS in api/: the service
 * fields' change kinds come from there. The provider's own inputs are deploy, suspended (RENTAL),
 * readyTimeoutSec, the placement's fallbacks and wait (placement.ts) and adoptUid.
 */
import { z } from "zod";
import {
  InventoryResource,
  NAME_RULES,
  REDEPLOY_EXEMPT,
  WORKLOAD_FIELDS,
  WORKLOAD_SERVICE_FIELDS,
  Workload,
  WorkloadCreate,
  WorkloadStateSummary,
  createAccepts,
  type WorkloadStatus,
} from "../../../api/index.ts";
import {
  ADOPT_UID,
  AUTO_NAME_NOTE,
  PYTHON_RESOURCE_NAME,
  TIMESTAMPS,
  bodyInputsOf,
  readyTimeout,
  uidOutput,
  type Definition,
  type InputDef,
} from "../../core/definition.ts";
import { portsNormaliser, sortedStrings, type Normaliser } from "../../core/diff.ts";
import { DEFAULT_READY_TIMEOUT_SEC } from "../../core/timeouts.ts";
import type { Props } from "../../core/types.ts";
import { pick } from "../../core/values.ts";
import { snakeToCamel, toWire } from "../../core/wire.ts";
import { RESOURCE_NAME_WIRE, workloadOutputs } from "./outputs.ts";
import { PLACEMENT_INPUTS, placement } from "./placement.ts";
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
    name: {
      description: `${NAME_RULES.workload.words}. ${AUTO_NAME_NOTE}`,
      autoName: NAME_RULES.workload,
    },
    image: {
      description: "RENTAL: a container image; VM and BM: an image name (getVmImages, getBmImages).",
      required: true,
    },
    resource_name: {
      description:
        "The inventory resource, e.g. gpu-rental-small, vm-standard or bm-h100-8x; the first choice when fallbackResourceNames are given (a change that keeps the workload's resource among them is in place).",
      required: true,
      wire: RESOURCE_NAME_WIRE,
      languageNames: PYTHON_RESOURCE_NAME,
    },
    // The record reports a BM workload's region inside bm_config.
    region: {
      description:
        "An active region (getRegions); required for BM; the first choice when fallbackRegions are given (a change that keeps the workload's region among them is in place).",
      wire: { record: "bm_config.region" },
    },
    reservation_uid: { description: "An ACTIVE reservation." },
    envs: { description: "Environment variables." },
    ports: {
      description: "1024-65535; VM takes TCP or UDP; at most 10 DIRECT.",
      normalise: portsNormaliser(true),
    },
    commands: { description: "The container's command." },
    args: { description: "The container's arguments." },
    registry_auth: {
      description: "Private registry credentials; removing them clears them on the service.",
      secret: true,
    },
    ssh_keys: { description: "SshKey uids; BM requires at least one.", normalise: sortedStrings },
    volumes: { description: "Volumes to mount.", normalise: volumes },
    vm_config: {
      description: "The password (at least 4 characters); required for VM.",
      secret: true,
    },
    bm_config: { description: "The RFC 1123 hostname (at most 63), by default the name." },
    project_id: { description: "The project; removing it removes the workload from its project." },
    experiments: { description: "Feature switches (reserved-gpu, persistent-workload)." },
  };

const TYPES = ["RENTAL", "VM", "BM"] as const;

const serviceInputs = Object.fromEntries(
  WORKLOAD_SERVICE_FIELDS.map((f): [string, InputDef] => {
    const field = WORKLOAD_FIELDS[f] as { change: InputDef["change"]; writeOnly?: readonly string[] };
    // The workload types whose create body takes the field (WORKLOAD_FIELDS), when not all of them.
    const types = TYPES.filter((t) => createAccepts(t, f));
    const only = types.length < TYPES.length ? ` Workload types: ${types.join(", ")}.` : "";
    return [
      snakeToCamel(f),
      {
        type: WorkloadCreate.shape[f] as z.ZodType,
        change: field.change,
        writeOnly: field.writeOnly,
        ...FIELDS[f],
        description: `${FIELDS[f].description}${only}`,
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
      role: "provider",
    },
    suspended: {
      type: z.boolean(),
      description: "true suspends the workload, false deploys it again. Workload types: RENTAL.",
      change: "update",
      default: false,
      role: "provider",
    },
    readyTimeoutSec: readyTimeout("running", DEFAULT_READY_TIMEOUT_SEC),
    ...PLACEMENT_INPUTS,
    adoptUid: ADOPT_UID,
  },
  outputs: {
    uid: uidOutput("workload"),
    ...workloadOutputs,
    placedResourceName: {
      type: z.string(),
      description:
        "The inventory resource the workload runs on: resourceName, or the fallback a create took when the service had no capacity for those before it.",
      wire: RESOURCE_NAME_WIRE,
    },
    placedRegion: {
      type: z.string(),
      description: "BM: the region the workload runs in: region, or the fallback region a create took.",
      wire: { record: "bm_config.region" },
    },
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
    ...TIMESTAMPS,
  },
  validate: (olds, news) => validateWorkload(olds, news, createBody(news)),
  // A change of the candidate lists replaces the workload only when it takes away where it runs.
  placement,
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
  // A workload whose deploy the service refused (credits, capacity) stays registered; up deploys it.
  undeployed: ["registered"],
  notes: `Create registers the workload, deploys it (unless \`deploy: false\`) and waits for \`running\`.
When the service refuses the deploy for credits or capacity (\`WORKLOAD_INSUFFICIENT_CREDITS\`,
\`WORKLOAD_NO_CAPACITY\`, \`WORKLOAD_BM_CLAIM_CONFLICT\`) the error on the resource says so at
once, with the reason code and the service's message; when the workload goes to \`error\` the
service's message is reported; when \`readyTimeoutSec\` passes, the last status is. In each
case (a capacity refusal of a workload with fallbacks or a wait aside, below) the registered
workload stays in the stack (a partially created resource) so nothing is
left on the service untracked, and the next \`pulumi up\` deploys it in place, without a
replacement: a workload found \`registered\` while the program wants it deployed previews as an
update that deploys it. (OpenTofu marks a resource whose create failed tainted and replaces it;
\`tofu untaint\` keeps it, and the next apply deploys it in place.)

**Lifecycle drift.** Refresh reads a workload the service put in \`error\` (or that is back in
\`registered\`) as \`deploy: false\`, and a RENTAL workload suspended outside Pulumi as
\`suspended: true\`; preview then shows the change and up deploys it again and waits for
\`running\`. A healthy workload previews with no change.

**When capacity runs out.** \`fallbackResourceNames\` (and, for BM, \`fallbackRegions\`) list what
else the workload may run on, in order; a create refused for capacity registers it again on the
next candidate and deletes the registration left behind, and \`waitForCapacity\` (\`"10m"\`) makes
it try them all again until capacity is free. \`placedResourceName\` and \`placedRegion\` say where it
landed. A change of the lists never replaces a workload that still runs on one of its candidates;
refresh never moves it back to the first choice. See [When capacity runs out](../capacity.md).

Passwords are never returned by the service, so refresh cannot see a password changed outside
Pulumi; it keeps the one in state. Deleting is a soft delete on the service; a workload that is
gone or \`deleted\` is dropped from the stack at refresh.`,
  example: {
    type: "RENTAL",
    name: "web",
    image: "nginx:1.27",
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
  },
};

/** The create body the inputs make: one field per input the body carries (one per service field). */
export function createBody(inputs: Props): WorkloadCreate {
  return toWire<WorkloadCreate>(pick(inputs, bodyInputsOf(definition)));
}
