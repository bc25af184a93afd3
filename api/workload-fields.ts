/**
 * The one table of workload fields: which types a create body and a PATCH accept each field
 * for, and what changing it does to a deployed workload. The server's validation and redeploy
 * rule, the provider's diff rules and PATCH bodies, and the tables of docs/resources.md all come
 * from here (test/provider/fields-doc.test.ts holds the docs to it).
 */
import type { WorkloadStatus, WorkloadType } from "./workload.ts";

/**
 * What a change of a field does to a workload that exists:
 * - `update`: changed in place (PATCH), the runtime is left alone;
 * - `redeploy`: changed in place, and the service redeploys a workload whose status is not one
 *   of REDEPLOY_EXEMPT (new revision, provisioning, then running again);
 * - `replace`: fixed at creation; a different value needs a new workload.
 */
export type FieldChange = "update" | "redeploy" | "replace";

export interface WorkloadField {
  /** Types whose create body may carry the field. */
  create: readonly WorkloadType[];
  /** Types whose PATCH may carry the field (empty: fixed at creation). */
  patch: readonly WorkloadType[];
  /** What a change does to a RENTAL, VM or BM workload. Sandboxes are never redeployed by a PATCH. */
  change: FieldChange;
  /** The PATCH value that clears the field (undefined: it cannot be cleared, only changed). */
  cleared?: unknown;
  /** Sub-fields the service takes but never returns (passwords): a read shows the field without them. */
  writeOnly?: readonly string[];
}

const ALL = ["RENTAL", "VM", "BM", "SANDBOX"] as const;
const RENTAL = ["RENTAL"] as const;
const FIXED = [] as const;

export const WORKLOAD_FIELDS = {
  type: { create: ALL, patch: FIXED, change: "replace" },
  name: { create: ALL, patch: ALL, change: "update" },
  image: { create: ALL, patch: ["RENTAL", "VM", "BM"], change: "redeploy" },
  resource_name: { create: ALL, patch: FIXED, change: "replace" },
  region: { create: ["BM"], patch: FIXED, change: "replace" },
  reservation_uid: { create: ["VM", "BM"], patch: FIXED, change: "replace" },
  envs: { create: RENTAL, patch: RENTAL, change: "redeploy", cleared: [] },
  ports: {
    create: ["RENTAL", "VM", "SANDBOX"],
    patch: ["RENTAL", "VM", "SANDBOX"],
    change: "redeploy",
    cleared: [],
  },
  commands: { create: RENTAL, patch: RENTAL, change: "redeploy", cleared: [] },
  args: { create: RENTAL, patch: RENTAL, change: "redeploy", cleared: [] },
  registry_auth: {
    create: RENTAL,
    patch: RENTAL,
    change: "redeploy",
    cleared: null,
    writeOnly: ["password"],
  },
  ssh_keys: { create: ALL, patch: ALL, change: "redeploy", cleared: [] },
  volumes: { create: RENTAL, patch: RENTAL, change: "redeploy", cleared: [] },
  vm_config: { create: ["VM"], patch: FIXED, change: "replace", writeOnly: ["password"] },
  bm_config: { create: ["BM"], patch: FIXED, change: "replace" },
  sandbox_config: { create: ["SANDBOX"], patch: ["SANDBOX"], change: "update" },
  project_id: { create: ALL, patch: ALL, change: "update", cleared: "" },
  experiments: { create: ["RENTAL", "VM"], patch: ["RENTAL", "VM"], change: "redeploy", cleared: {} },
} as const satisfies Record<string, WorkloadField>;

export type WorkloadFieldName = keyof typeof WORKLOAD_FIELDS;

export const WORKLOAD_FIELD_NAMES = Object.keys(WORKLOAD_FIELDS) as WorkloadFieldName[];

/** The fields holding sub-fields the service never returns, with those sub-fields. */
export const WRITE_ONLY_FIELDS = Object.fromEntries(
  WORKLOAD_FIELD_NAMES.flatMap((f) => {
    const hidden = (WORKLOAD_FIELDS[f] as WorkloadField).writeOnly;
    return hidden ? [[f, hidden]] : [];
  }),
) as Partial<Record<WorkloadFieldName, readonly string[]>>;

/** Statuses from which a PATCH never redeploys. */
export const REDEPLOY_EXEMPT: readonly WorkloadStatus[] = ["registered", "suspended", "deleted"];

export function field(name: WorkloadFieldName): WorkloadField {
  return WORKLOAD_FIELDS[name];
}

/** Whether a create body of `type` may carry `name`. */
export function createAccepts(type: WorkloadType, name: WorkloadFieldName): boolean {
  return (field(name).create as readonly string[]).includes(type);
}

/** Whether a PATCH of a `type` workload may carry `name`. */
export function patchAccepts(type: WorkloadType, name: WorkloadFieldName): boolean {
  return (field(name).patch as readonly string[]).includes(type);
}

/** Fields a create body of `type` must not carry. */
export function unsupportedFields(type: WorkloadType): WorkloadFieldName[] {
  return WORKLOAD_FIELD_NAMES.filter((f) => !createAccepts(type, f));
}

/** Fields a PATCH of `type` may carry. */
export function patchFields(type: WorkloadType): WorkloadFieldName[] {
  return WORKLOAD_FIELD_NAMES.filter((f) => patchAccepts(type, f));
}

/** Fields a sandbox PATCH may carry; anything else is WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD. */
export const SANDBOX_PATCH_FIELDS: readonly string[] = patchFields("SANDBOX");

/** What changing `name` does to a workload of `type` (sandboxes update in place, spec 4.2). */
export function changeOf(type: WorkloadType, name: WorkloadFieldName): FieldChange {
  if (!patchAccepts(type, name)) return "replace";
  return type === "SANDBOX" ? "update" : field(name).change;
}

/** Whether changing the fields `changed` makes the service redeploy a workload in `status`. */
export function redeploys(type: WorkloadType, status: WorkloadStatus, changed: readonly string[]): boolean {
  if (type === "SANDBOX" || REDEPLOY_EXEMPT.includes(status)) return false;
  return changed.some((k) => k in WORKLOAD_FIELDS && changeOf(type, k as WorkloadFieldName) === "redeploy");
}
