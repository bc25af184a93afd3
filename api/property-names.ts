/**
 * The names a Pulumi program uses: every snake_case wire field is the camelCase input or output
 * of the same name (`ssh_keys` is `sshKeys`), the inputs of a Workload, and the outputs of every
 * resource. The SDK (sdk/) and the provider take their names from here, so this file loads
 * nothing at run time: no zod, no client, no provider. provider/wire.ts converts whole values
 * with these names and states the few properties named otherwise.
 */
import { WORKLOAD_FIELD_NAMES } from "./workload-fields.ts";

export const camelToSnake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const snakeToCamel = (k: string) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The service fields a Workload input stands for (sandbox_config belongs to the Sandbox resource). */
export const WORKLOAD_SERVICE_FIELDS = WORKLOAD_FIELD_NAMES.filter((f) => f !== "sandbox_config");

/**
 * The provider's own Workload inputs, which the service does not store: whether to deploy,
 * whether to suspend (RENTAL), how long to wait for running, and an object to adopt.
 */
export const WORKLOAD_LIFECYCLE_INPUTS = ["deploy", "suspended", "readyTimeoutSec", "adoptUid"] as const;

/** Every input of a Workload: what the service stores, and the provider's lifecycle switches. */
export const WORKLOAD_INPUTS = [
  ...WORKLOAD_SERVICE_FIELDS.map(snakeToCamel),
  ...WORKLOAD_LIFECYCLE_INPUTS,
] as const;

/**
 * The Sandbox inputs that stand for a service field of its SANDBOX workload, in create-body
 * order (provider/wire.ts says where each is sent: `template` is `image`, for one).
 */
export const SANDBOX_SERVICE_INPUTS = [
  "name",
  "template",
  "resourceName",
  "projectId",
  "sshKeys",
  "ports",
  "ttlSec",
  "idleTimeoutSec",
] as const;

/** What each resource computes, besides its inputs (every input is an output too). */
export const RESOURCE_OUTPUTS = {
  Workload: [
    "uid",
    "status",
    "statusMessage",
    "urls",
    "publicIp",
    "sshPort",
    "readyReplicas",
    "totalReplicas",
    "costPerHour",
    "revision",
    "inventory",
    "createdAt",
    "updatedAt",
  ],
  Sandbox: [
    "uid",
    "status",
    "statusMessage",
    "urls",
    "sshPort",
    "costPerHour",
    "frozenCostPerHour",
    "templateUid",
    "parentUid",
    "revision",
    "createdAt",
    "updatedAt",
  ],
  SandboxTemplate: [
    "uid",
    "kind",
    "status",
    "templateResourceName",
    "costPerHour",
    "frozenCostPerHour",
    "createdAt",
    "updatedAt",
  ],
  Volume: [
    "uid",
    "size",
    "status",
    "statusMessage",
    "costPerHour",
    "workloadUid",
    "mountPath",
    "pvcName",
    "createdAt",
    "updatedAt",
  ],
  SshKey: ["uid", "publicKeyRaw", "createdAt", "updatedAt"],
  WorkloadTemplate: ["uid", "visibility", "createdAt", "updatedAt"],
} as const;

/**
 * Every input of each resource, as the plugin's schema (provider/native/properties.ts) types them
 * and the native SDK classes (sdk/native/) declare them.
 */
export const RESOURCE_INPUTS = {
  Workload: WORKLOAD_INPUTS,
  Sandbox: [...SANDBOX_SERVICE_INPUTS, "forkFrom", "frozen", "readyTimeoutSec", "adoptUid"],
  SandboxTemplate: ["name", "sourceSandbox", "displayName", "description", "readyTimeoutSec"],
  Volume: ["name", "sizeInMb", "resourceName", "adoptUid"],
  SshKey: ["name", "publicKey", "adoptUid"],
  WorkloadTemplate: ["name", "description", "type", "manifest"],
} as const satisfies Record<keyof typeof RESOURCE_OUTPUTS, readonly string[]>;

/** The inputs of each resource that state keeps as Pulumi secrets (passwords; a template's manifest holds them too). */
export const RESOURCE_SECRETS: Record<keyof typeof RESOURCE_OUTPUTS, readonly string[]> = {
  Workload: ["registryAuth", "vmConfig"],
  Sandbox: [],
  SandboxTemplate: [],
  Volume: [],
  SshKey: [],
  WorkloadTemplate: ["manifest"],
};
