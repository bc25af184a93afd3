/**
 * The create body of each workload type, as the OpenAPI document states it: every rule of
 * api/workload-rules.ts a JSON Schema can hold (name patterns, the fields each type refuses, the
 * fields each type requires, regions, hostnames, ports), built from the same definitions the
 * server validates with: WorkloadCreate's field schemas, WORKLOAD_FIELDS, NAME_RULES, LIMITS and
 * the patterns of workload-rules.ts. The server checks WorkloadCreate and then those rules, so
 * that each broken rule gets its own reason; test/server/openapi-rules.test.ts holds the two to
 * the same verdicts. Rules that need server data (an inventory resource, an image of the catalog,
 * an SSH key or volume of the org) are said in the fields' descriptions: a request that breaks
 * one is answered 404 with the reason that names it.
 */
import { z } from "zod";
import { LIMITS } from "./limits.ts";
import { NAME_RULES } from "./names.ts";
import { SLUG } from "./common.ts";
import { HOSTNAME, NO_WHITESPACE } from "./workload-rules.ts";
import { createAccepts, WORKLOAD_FIELD_NAMES } from "./workload-fields.ts";
import { ForkBody } from "./sandbox.ts";
import { Port, WorkloadCreate, WorkloadPatch, WORKLOAD_TYPES, type WorkloadType } from "./workload.ts";

const CREATE_SHAPE = WorkloadCreate.shape;

/** A name of `type`'s rule (spec 2.1). */
export function workloadName(type: WorkloadType) {
  const rule = type === "SANDBOX" ? NAME_RULES.sandbox : NAME_RULES.workload;
  return z
    .string()
    .min(1)
    .max(rule.max)
    .regex(rule.pattern)
    .meta({ description: `${rule.words}` });
}

/** The port entry `type` takes: SANDBOX refuses routing and port 22; VM and SANDBOX refuse SCTP. */
function portOf(type: WorkloadType) {
  const protocols = type === "VM" || type === "SANDBOX" ? (["TCP", "UDP"] as const) : undefined;
  let shape: z.ZodRawShape = { ...Port.shape };
  if (protocols) shape = { ...shape, protocol: z.enum(protocols).optional() };
  if (type === "SANDBOX") {
    const { routing: _r, ...rest } = shape;
    shape = {
      ...rest,
      port: Port.shape.port.meta({
        not: { const: LIMITS.sandboxReservedPort },
        description: `port ${LIMITS.sandboxReservedPort} is reserved for SSH`,
      }),
    };
  }
  return z.strictObject(shape);
}

/** `type`'s ports: its entries, no entry twice, at most LIMITS.directPortsMax DIRECT ones. */
function portsOf(type: WorkloadType) {
  return z
    .array(portOf(type))
    .meta({
      uniqueItems: true,
      ...(type === "SANDBOX"
        ? {}
        : {
            contains: { type: "object", properties: { routing: { const: "DIRECT" } }, required: ["routing"] },
            minContains: 0,
            maxContains: LIMITS.directPortsMax,
          }),
      description: `no two entries with the same port and protocol (protocol TCP when left out)${
        type === "SANDBOX" ? "" : `; at most ${LIMITS.directPortsMax} DIRECT entries`
      }`,
    })
    .optional();
}

const inventoryResource = (type: WorkloadType) =>
  z
    .string()
    .min(1)
    .meta({
      description: `the name of an inventory resource of type ${
        type === "SANDBOX" ? "sandbox" : type.toLowerCase()
      } (a name this schema cannot list: the server's inventory holds them); another name is 404 WORKLOAD_RESOURCE_NOT_FOUND`,
    });

/** The fields that name objects of the org: each must exist, else 404 (the reason names the field). */
const REFERENCES = {
  ssh_keys: z
    .array(z.string().min(1))
    .meta({
      uniqueItems: true,
      description: "UIDs of SSH keys of the org, each once; an unknown one is 404 WORKLOAD_SSH_KEY_NOT_FOUND",
    })
    .optional(),
  volumes: CREATE_SHAPE.volumes.meta({
    description:
      "volumes of the org, each once and each at its own mount_path, none held by another live workload; an unknown one is 404 WORKLOAD_VOLUME_NOT_FOUND",
  }),
};

/** The create body of one workload type. */
function createBodyOf(type: WorkloadType) {
  const shape: Record<string, z.ZodType> = {};
  for (const field of WORKLOAD_FIELD_NAMES) {
    if (!createAccepts(type, field)) continue;
    shape[field] = (CREATE_SHAPE as Record<string, z.ZodType>)[field]!;
  }
  shape.type = z.literal(type);
  shape.name = workloadName(type);
  shape.ssh_keys = REFERENCES.ssh_keys;
  if (type === "RENTAL") {
    shape.volumes = REFERENCES.volumes;
    shape.image = z.string().min(1).regex(NO_WHITESPACE).meta({ description: "a container image reference" });
  }
  if (type === "VM" || type === "BM") {
    shape.image = z
      .string()
      .min(1)
      .meta({
        description: `the name of an image of GET /orgs/{org}/workloads/${type.toLowerCase()}-images; another is 404`,
      });
  }
  if (type === "SANDBOX") {
    shape.image = z.string().min(1).meta({
      description:
        "the UID of a READY sandbox template of GET /orgs/{org}/sandbox-templates the sandbox starts from; another is 404 WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND",
    });
    shape.resource_name = inventoryResource(type).optional();
    shape.sandbox_config = CREATE_SHAPE.sandbox_config.meta({
      description: "idle_timeout_sec must be smaller than ttl_sec when both are set and not 0",
    });
  } else shape.resource_name = inventoryResource(type);
  if ("ports" in shape) shape.ports = portsOf(type);
  if (type === "VM") shape.vm_config = CREATE_SHAPE.vm_config.unwrap();
  if (type === "BM") {
    shape.region = z.string().min(1).max(LIMITS.regionSlugMax).regex(SLUG).meta({
      description: "a lowercase slug: an active region of GET /orgs/{org}/region, else 409",
    });
    shape.ssh_keys = REFERENCES.ssh_keys.unwrap().min(1);
    shape.bm_config = z
      .strictObject({
        hostname: z
          .string()
          .max(LIMITS.bmHostnameMax)
          .regex(HOSTNAME)
          .meta({ description: "an RFC 1123 hostname" })
          .optional(),
      })
      .optional();
  }
  return z.strictObject(shape);
}

/** The create body of each type (component names RentalWorkloadCreate, ...). */
export const RentalWorkloadCreate = createBodyOf("RENTAL");
export const VmWorkloadCreate = createBodyOf("VM");
export const BmWorkloadCreate = createBodyOf("BM");
export const SandboxWorkloadCreate = createBodyOf("SANDBOX");

const BY_TYPE = {
  RENTAL: RentalWorkloadCreate,
  VM: VmWorkloadCreate,
  BM: BmWorkloadCreate,
  SANDBOX: SandboxWorkloadCreate,
} as const satisfies Record<WorkloadType, z.ZodType>;

/** `<Type><suffix>`: the component name of the object of one workload type (RentalWorkloadCreate, VmTemplateCreate). */
export const typeComponent = (type: WorkloadType, suffix: string): string =>
  `${type[0]}${type.slice(1).toLowerCase()}${suffix}`;

/** The OpenAPI discriminator of a union of one object per workload type, by `type`. */
export const typeDiscriminator = (suffix: string) => ({
  propertyName: "type",
  mapping: Object.fromEntries(
    WORKLOAD_TYPES.map((t) => [t, `#/components/schemas/${typeComponent(t, suffix)}`]),
  ),
});

/** One object per workload type, as a union by `type`. */
export const byType = (objects: Record<WorkloadType, z.ZodObject>, suffix: string) =>
  z
    .discriminatedUnion(
      "type",
      WORKLOAD_TYPES.map((t) => objects[t]) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]],
    )
    .meta({ discriminator: typeDiscriminator(suffix) });

/** The create body of each type. */
export const WORKLOAD_CREATE_BODIES: Record<WorkloadType, z.ZodObject> = BY_TYPE;

/** The create body as the document states it: one of the four, by `type`. */
export const WorkloadCreateByType = byType(BY_TYPE, "WorkloadCreate");

/**
 * The PATCH body as the document states it: WorkloadPatch with the name rule of RENTAL, VM and BM
 * workloads (a SANDBOX name must also neither start nor end with a hyphen; the path does not say
 * the type), the SSH key list of the create bodies and an image without whitespace.
 */
export const WorkloadPatchDocumented = WorkloadPatch.extend({
  name: workloadName("RENTAL")
    .meta({
      description: `${NAME_RULES.workload.words}; SANDBOX: ${NAME_RULES.sandbox.words}`,
    })
    .optional(),
  ssh_keys: REFERENCES.ssh_keys,
  // No type's image holds whitespace: a RENTAL's is a container reference, a VM's or BM's a name
  // of its image list.
  image: z
    .string()
    .min(1)
    .regex(NO_WHITESPACE)
    .meta({ description: "RENTAL: a container image reference; VM, BM: a name of their image list" })
    .optional(),
});

/** The fork body as the document states it: the child is a sandbox, its name a sandbox's. */
export const ForkBodyDocumented = ForkBody.extend({ name: workloadName("SANDBOX").optional() });
