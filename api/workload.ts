import { z } from "zod";
import { LIMITS } from "./limits.ts";
import { Timestamp, page, listPageFields, timestampFields } from "./common.ts";

export const WORKLOAD_TYPES = ["RENTAL", "VM", "BM", "SANDBOX"] as const;
export const WorkloadType = z.enum(WORKLOAD_TYPES);
export type WorkloadType = z.infer<typeof WorkloadType>;

export const WORKLOAD_STATUSES = [
  "registered",
  "provisioning",
  "running",
  "error",
  "suspended",
  "deleted",
  "frozen",
] as const;
export const WorkloadStatus = z.enum(WORKLOAD_STATUSES);
export type WorkloadStatus = z.infer<typeof WorkloadStatus>;

/** Inventory type each workload type maps to. */
export const INVENTORY_TYPE: Record<Exclude<WorkloadType, "SANDBOX">, string> = {
  RENTAL: "rental",
  VM: "vm",
  BM: "bm",
};

export const Port = z.strictObject({
  port: z
    .number()
    .int("port must be an integer")
    .min(LIMITS.portMin, `port must be between ${LIMITS.portMin} and ${LIMITS.portMax}`)
    .max(LIMITS.portMax, `port must be between ${LIMITS.portMin} and ${LIMITS.portMax}`),
  protocol: z.enum(["TCP", "UDP", "SCTP"]).optional(),
  routing: z.enum(["PROXIED", "DIRECT"]).optional(),
});
export type Port = z.infer<typeof Port>;

export const Env = z.strictObject({
  name: z.string().min(1, "env name must not be empty"),
  value: z.string(),
});
export type Env = z.infer<typeof Env>;

export const RegistryAuth = z.strictObject({
  server: z.string().min(1, "registry_auth.server must not be empty"),
  username: z.string().min(1, "registry_auth.username must not be empty"),
  password: z.string().min(1, "registry_auth.password must not be empty"),
});
export type RegistryAuth = z.infer<typeof RegistryAuth>;

export const VolumeMount = z.strictObject({
  uid: z.string().min(1, "volume uid is required"),
  mount_path: z.string().startsWith("/", "mount_path must be an absolute path"),
  read_only: z.boolean().optional(),
});
export type VolumeMount = z.infer<typeof VolumeMount>;

export const VmConfig = z.strictObject({
  password: z
    .string()
    .min(LIMITS.vmPasswordMin, `vm_config.password must be at least ${LIMITS.vmPasswordMin} characters`),
});
export type VmConfig = z.infer<typeof VmConfig>;

export const BmConfig = z.strictObject({ hostname: z.string().optional() });
export type BmConfig = z.infer<typeof BmConfig>;

const seconds = (field: string) =>
  z.number().int(`${field} must be an integer`).min(0, `${field} must be non-negative`);

export const SandboxConfig = z.strictObject({
  idle_timeout_sec: seconds("sandbox_config.idle_timeout_sec").optional(),
  ttl_sec: seconds("sandbox_config.ttl_sec").optional(),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

export const Experiments = z.strictObject({
  "reserved-gpu": z.boolean().optional(),
  "persistent-workload": z.boolean().optional(),
});
export type Experiments = z.infer<typeof Experiments>;

/** Workload create body (spec 2.1). Cross-field rules live in workload-rules.ts. */
export const WorkloadCreate = z.strictObject({
  type: WorkloadType,
  name: z.string(),
  image: z.string().min(1, "image is required"),
  resource_name: z.string().min(1).optional(),
  region: z.string().optional(),
  reservation_uid: z.string().min(1).optional(),
  envs: z.array(Env).optional(),
  ports: z.array(Port).optional(),
  commands: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  registry_auth: RegistryAuth.optional(),
  ssh_keys: z.array(z.string().min(1)).optional(),
  volumes: z.array(VolumeMount).optional(),
  vm_config: VmConfig.optional(),
  bm_config: BmConfig.optional(),
  sandbox_config: SandboxConfig.optional(),
  project_id: z.string().optional(),
  experiments: Experiments.optional(),
});
export type WorkloadCreate = z.infer<typeof WorkloadCreate>;

/**
 * PATCH body: the updatable fields, all optional (spec 4.1, 4.2). Which type accepts which field
 * is WORKLOAD_FIELDS (workload-fields.ts). To clear a field, send its `cleared` value there:
 * `[]` for lists, `{}` for experiments, `""` for project_id and `null` for registry_auth.
 */
export const WorkloadPatch = z.strictObject({
  name: z.string().optional(),
  image: z.string().min(1, "image must not be empty").optional(),
  envs: z.array(Env).optional(),
  ports: z.array(Port).optional(),
  commands: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  registry_auth: RegistryAuth.nullable().optional(),
  ssh_keys: z.array(z.string().min(1)).optional(),
  volumes: z.array(VolumeMount).optional(),
  project_id: z.string().optional(),
  experiments: Experiments.optional(),
  sandbox_config: SandboxConfig.optional(),
});
export type WorkloadPatch = z.infer<typeof WorkloadPatch>;

export const Url = z.object({ port: z.number().int(), url: z.string() });

export const WorkloadStateSummary = z.object({
  status: WorkloadStatus,
  message: z.string(),
  urls: z.array(Url),
  public_ip: z.string().nullable().optional(),
  ssh_port: z.number().int().nullable().optional(),
  ready_replicas: z.number().int(),
  total_replicas: z.number().int(),
});
export type WorkloadStateSummary = z.infer<typeof WorkloadStateSummary>;

export const InventoryResource = z.object({
  name: z.string(),
  display_name: z.string(),
  gpu_type: z.string().nullable(),
  gpu_count: z.number(),
  vcpu: z.number(),
  memory: z.number(),
  disk_size_mib: z.number(),
  network_mode: z.string(),
});
export type InventoryResource = z.infer<typeof InventoryResource>;

const ResponseVolumeMount = z.object({ uid: z.string(), mount_path: z.string(), read_only: z.boolean() });
const ResponsePort = z.object({
  port: z.number().int(),
  protocol: z.enum(["TCP", "UDP", "SCTP"]),
  routing: z.enum(["PROXIED", "DIRECT"]).optional(),
});

/** Operation response: create, list items, deploy (spec 2.2). */
export const WorkloadOperation = z.object({
  uid: z.string(),
  type: WorkloadType,
  name: z.string(),
  image: z.string(),
  reservation_uid: z.string().optional(),
  cost_per_hour: z.number(),
  resource: InventoryResource,
  revision: z.string(),
  volumes: z.array(ResponseVolumeMount),
  state: WorkloadStateSummary,
  ...timestampFields,
});
export type WorkloadOperation = z.infer<typeof WorkloadOperation>;

/** registry_auth as echoed back: the password is never returned. */
export const RegistryAuthView = z.object({ server: z.string(), username: z.string() });

/** Full workload (GET one, PATCH response; spec 2.3). */
export const Workload = WorkloadOperation.extend({
  project_id: z.string().nullable().optional(),
  envs: z.array(z.object({ name: z.string(), value: z.string() })),
  ports: z.array(ResponsePort),
  commands: z.array(z.string()),
  args: z.array(z.string()),
  registry_auth: RegistryAuthView.nullable().optional(),
  ssh_keys: z.array(z.string()),
  experiments: z.record(z.string(), z.boolean()),
  bm_config: z.object({ region: z.string(), hostname: z.string() }).optional(),
  frozen_cost_per_hour: z.number().optional(),
  sandbox_config: z
    .object({
      template_uid: z.string(),
      ttl_sec: z.number().int(),
      idle_timeout_sec: z.number().int(),
      parent_workload_uid: z.string().optional(),
    })
    .optional(),
});
export type Workload = z.infer<typeof Workload>;

export const WorkloadList = page(WorkloadOperation);

/** Workload state record (GET state; spec 2.4). */
export const WorkloadState = z.object({
  uid: z.string(),
  workload_type: WorkloadType,
  ...WorkloadStateSummary.shape,
  updated_at: Timestamp,
});
export type WorkloadState = z.infer<typeof WorkloadState>;

/** Workload event record (spec 2.5). */
export const WorkloadEvent = z.object({
  workload_uid: z.string(),
  workload_type: z.string(),
  resource_name: z.string().nullable(),
  event_type: z.string(),
  pod_name: z.string().nullable(),
  container_name: z.string().nullable(),
  container_image: z.string().nullable(),
  new_status: z.string().nullable(),
  replica_count: z.number().nullable(),
  old_replica_count: z.number().nullable(),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  display_message: z.string().nullable(),
  exit_code: z.number().nullable(),
  created_at: Timestamp,
});
export type WorkloadEvent = z.infer<typeof WorkloadEvent>;
export const WorkloadEventList = page(WorkloadEvent);

export const WorkloadListQuery = z.strictObject({
  ...listPageFields,
  type: WorkloadType.optional(),
  status: WorkloadStatus.optional(),
  project_id: z.string().optional(),
  name: z.string().optional(),
});
export type WorkloadListQuery = z.infer<typeof WorkloadListQuery>;

export const LogsQuery = z.strictObject({
  since: z.iso.datetime({ offset: true, message: "since must be an RFC 3339 timestamp" }).optional(),
  tail: z.coerce.number().int().min(0, "tail must be a non-negative integer").optional(),
  follow: z.enum(["true", "false"]).optional(),
  previous: z.enum(["true", "false"]).optional(),
  type: z.enum(["serial", "qemu"]).optional(),
});
export type LogsQuery = z.infer<typeof LogsQuery>;

export const VerifyBody = z.strictObject({
  uid: z.string().min(1, "uid is required"),
  digest: z.string().regex(/^(sha256:)?[a-f0-9]{64}$/, "digest must be a SHA256 hex digest"),
});
export type VerifyBody = z.infer<typeof VerifyBody>;
export const VerifyResult = z.object({ verified: z.boolean() });
export type VerifyResult = z.infer<typeof VerifyResult>;

export const AttachVolumeBody = z.strictObject({
  mount_path: z.string().startsWith("/", "mount_path must be an absolute path"),
  read_only: z.boolean().optional(),
});
export type AttachVolumeBody = z.infer<typeof AttachVolumeBody>;
export const AttachedVolume = z.object({
  workload_uid: z.string(),
  volume_uid: z.string(),
  mount_path: z.string(),
  read_only: z.boolean(),
});
export const AttachedSshKey = z.object({ workload_uid: z.string(), ssh_key_uid: z.string() });
export type AttachedVolume = z.infer<typeof AttachedVolume>;
export type AttachedSshKey = z.infer<typeof AttachedSshKey>;
