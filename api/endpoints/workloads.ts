/** Workloads (spec 4.1): their endpoints. */
import * as api from "../index.ts";
import type { Reason } from "../index.ts";
import {
  CREATE_RULES,
  DEPLOY,
  SANDBOX_TARGET,
  W,
  WL,
  created,
  noContent,
  ok,
  endpointGroup,
  workloadAction,
} from "./common.ts";

/** An action only some types take, from some states (suspend, reboot). */
const OF_ITS_TYPE_AND_STATE: Reason[] = [...WL, "WORKLOAD_OPERATION_UNSUPPORTED", "WORKLOAD_INVALID_STATE"];

/** Workloads (spec 4.1). */
export const WORKLOADS = endpointGroup("workloads", {
  vmImages: {
    method: "GET",
    pattern: "/orgs/:org/workloads/vm-images",
    summary: "List VM images",
    responses: ok(api.VmImageList),
    reasons: [],
  },
  bmImages: {
    method: "GET",
    pattern: "/orgs/:org/workloads/bm-images",
    summary: "List bare-metal images",
    description: "`name` is used as `image` for BM workloads.",
    responses: ok(api.BmImageList),
    reasons: [],
  },
  verify: {
    method: "POST",
    pattern: "/orgs/:org/workloads/verify",
    summary: "Verify a workload's image digest",
    description: "`verified` is true when `digest` is the SHA-256 of the workload's image reference.",
    body: api.VerifyBody,
    responses: ok(api.VerifyResult),
    reasons: ["WORKLOAD_NOT_FOUND"],
  },
  create: {
    method: "POST",
    pattern: "/orgs/:org/workloads",
    summary: "Register a workload (RENTAL, VM, BM or SANDBOX)",
    description:
      "The body is checked against the type-capability table and the field rules of the contract; every failing rule is named in the error message, the first rule's reason is returned. The workload starts `registered`.",
    body: api.WorkloadCreate,
    responses: created(api.WorkloadOperation),
    creates: { pattern: W, named: { key: "/ssh_keys/0", volume: "/volumes/0/uid" } },
    leadsTo: [
      {
        operation: "POST /orgs/:org/workloads/verify",
        body: { uid: "$response.body#/uid" },
        description: "Verify the image digest of what this created",
      },
    ],
    reasons: [
      ...CREATE_RULES,
      "WORKLOAD_RESERVATION_NOT_FOUND",
      "WORKLOAD_RESERVATION_INVALID",
      "WORKLOAD_BM_REGION_REQUIRED",
      "WORKLOAD_BM_REGION_INVALID",
      "WORKLOAD_BM_SSH_KEYS_REQUIRED",
      "WORKLOAD_BM_HOSTNAME_INVALID",
      "WORKLOAD_BM_REGION_NOT_FOUND",
      "WORKLOAD_BM_RESERVATION_REGION_MISMATCH",
      "WORKLOAD_BM_TARGET_NOT_FOUND",
      "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND",
      "WORKLOAD_SANDBOX_TEMPLATE_NOT_READY",
    ],
  },
  list: {
    method: "GET",
    pattern: "/orgs/:org/workloads",
    summary: "List workloads",
    description: "Deleted workloads are listed only with `status=deleted`.",
    query: api.WorkloadListQuery,
    responses: ok(api.WorkloadList),
    reasons: [],
  },
  get: {
    method: "GET",
    pattern: W,
    summary: "Get a workload",
    responses: ok(api.Workload),
    reasons: WL,
  },
  update: {
    method: "PATCH",
    pattern: W,
    summary: "Update a workload",
    description:
      "A deployed workload is redeployed when a deploy-affecting field changes (image, envs, ports, commands, args, registry_auth, ssh_keys, volumes, experiments). Sandboxes take only name, project_id, ssh_keys, ports and sandbox_config timeouts, without redeploy.",
    body: api.WorkloadPatch,
    responses: ok(api.Workload),
    reasons: [
      ...WL,
      ...CREATE_RULES,
      "WORKLOAD_INVALID_STATE",
      "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD",
      "WORKLOAD_NO_CAPACITY",
    ],
  },
  delete: {
    method: "DELETE",
    pattern: W,
    summary: "Delete a workload (soft: it stays readable with status deleted)",
    responses: noContent,
    reasons: WL,
  },
  deploy: {
    ...workloadAction("deploy", "Deploy a workload", [
      ...WL,
      ...DEPLOY,
      "WORKLOAD_BM_CLAIM_CONFLICT",
      "WORKLOAD_BM_SERVICE_UNAVAILABLE",
    ]),
    description: "From registered, suspended or error; the workload goes provisioning, then running.",
    answers: { pattern: W },
  },
  suspend: workloadAction("suspend", "Suspend a RENTAL workload", OF_ITS_TYPE_AND_STATE),
  reboot: workloadAction("reboot", "Reboot a VM workload", OF_ITS_TYPE_AND_STATE),
  state: {
    method: "GET",
    pattern: `${W}/state`,
    summary: "Get a workload's state record",
    responses: ok(api.WorkloadState),
    reasons: WL,
  },
  events: {
    method: "GET",
    pattern: `${W}/events`,
    summary: "List a workload's events",
    query: api.PageQuery,
    responses: ok(api.WorkloadEventList),
    reasons: WL,
  },
  logs: {
    method: "GET",
    pattern: `${W}/logs`,
    summary: "Read (or follow) a workload's logs",
    description: "`follow=true` streams new lines as `text/plain` until the client disconnects.",
    query: api.LogsQuery,
    responses: { 200: { description: "Log lines", text: true } },
    reasons: WL,
  },
  exec: {
    method: "POST",
    pattern: `${W}/exec`,
    summary: "Run a command (RENTAL: streamed text; SANDBOX: JSON result)",
    description:
      "RENTAL: the argv is given by repeating the `command` query parameter; the output is streamed as `text/plain`. SANDBOX: the body is `ExecBody` and the answer `ExecResult`.",
    queryParams: [
      {
        name: "command",
        description: "RENTAL: one argument of the command per occurrence",
        repeated: true,
      },
    ],
    body: api.ExecBody,
    bodyReason: "WORKLOAD_EXEC_INVALID",
    bodyOptional: true,
    responses: {
      200: {
        description: "RENTAL: streamed output (text/plain); SANDBOX: the result",
        schema: api.ExecResult,
        text: true,
      },
    },
    reasons: [...SANDBOX_TARGET, "WORKLOAD_NOT_RUNNING", "WORKLOAD_EXEC_INVALID"],
  },
  attachVolume: {
    method: "PUT",
    pattern: `${W}/volumes/:volume`,
    summary: "Attach a volume to a RENTAL workload",
    body: api.AttachVolumeBody,
    responses: ok(api.AttachedVolume),
    reasons: [
      ...WL,
      "VOLUME_NOT_FOUND",
      "WORKLOAD_OPERATION_UNSUPPORTED",
      "WORKLOAD_VOLUME_IN_USE",
      "WORKLOAD_FIELD_INVALID",
      "WORKLOAD_INVALID_STATE",
    ],
  },
  detachVolume: {
    method: "DELETE",
    pattern: `${W}/volumes/:volume`,
    summary: "Detach a volume",
    responses: noContent,
    reasons: [...WL, "WORKLOAD_VOLUME_NOT_ATTACHED", "WORKLOAD_INVALID_STATE"],
  },
  attachSshKey: {
    method: "PUT",
    pattern: `${W}/ssh-keys/:key`,
    summary: "Attach an SSH key",
    responses: ok(api.AttachedSshKey),
    reasons: [...WL, "SSH_KEY_NOT_FOUND", "WORKLOAD_INVALID_STATE"],
  },
  detachSshKey: {
    method: "DELETE",
    pattern: `${W}/ssh-keys/:key`,
    summary: "Detach an SSH key",
    description:
      "A BM workload keeps at least one SSH key: detaching its last one answers 400 `WORKLOAD_BM_SSH_KEYS_REQUIRED` (whether a key is the last depends on the stored workload, which no schema can state).",
    responses: noContent,
    reasons: [
      ...WL,
      "WORKLOAD_SSH_KEY_NOT_ATTACHED",
      "WORKLOAD_BM_SSH_KEYS_REQUIRED",
      "WORKLOAD_INVALID_STATE",
    ],
  },
});
