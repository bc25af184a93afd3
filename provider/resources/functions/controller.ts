/**
 * Lookups (Pulumi functions): read-only queries a program makes to find what to build on, such as
 * a READY sandbox template, an active region or an image name. Each is plain TypeScript over the
 * client (`await getRegions(client, {})`), served by the native plugin as
 * `cws:index:<name>`, and described in its schema from the same definitions.
 */
import { z } from "zod";
import {
  BmImage,
  Region,
  SANDBOX_TEMPLATE_KINDS,
  SANDBOX_TEMPLATE_STATUSES,
  SandboxTemplate,
  SshKey,
  VmImage,
  Volume,
  WorkloadTemplate,
} from "../../../api/index.ts";
import type { CwsClient } from "../../../client/index.ts";
import { fromWire } from "../../core/wire.ts";

type Props = Record<string, unknown>;

export interface FunctionDef {
  description: string;
  /** Arguments (camelCase), all optional filters. */
  args: Record<string, { schema: z.ZodType; description: string }>;
  /** The result: one list property, typed by the api/ contract (wire names become camelCase). */
  result: { name: string; item: z.ZodObject; description: string };
  run(client: CwsClient, args: Props): Promise<Props>;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const i of items) out.push(i);
  return out;
}

const byName = <T extends { name: string }>(items: T[], name: unknown) =>
  typeof name === "string" && name ? items.filter((i) => i.name === name) : items;

const camel = (items: object[]) => items.map((i) => fromWire<Props>(i));

const nameFilter = { schema: z.string(), description: "Only the ones with exactly this name." };

/** A workload template as a lookup returns it: without its manifest, which may hold passwords. */
const WorkloadTemplateSummary = WorkloadTemplate.omit({ manifest: true });

export const FUNCTIONS: Record<string, FunctionDef> = {
  getSandboxTemplates: {
    description: "Sandbox templates of the org (FRESH ones from the service and USER ones published).",
    args: {
      kind: { schema: z.enum(SANDBOX_TEMPLATE_KINDS), description: "FRESH or USER." },
      status: { schema: z.enum(SANDBOX_TEMPLATE_STATUSES), description: "PENDING, READY or FAILED." },
      name: nameFilter,
    },
    result: { name: "templates", item: SandboxTemplate, description: "The matching templates." },
    async run(client, args) {
      const query = {
        kind: args.kind as (typeof SANDBOX_TEMPLATE_KINDS)[number] | undefined,
        status: args.status as (typeof SANDBOX_TEMPLATE_STATUSES)[number] | undefined,
      };
      return { templates: camel(byName(await collect(client.sandboxTemplates.iterate(query)), args.name)) };
    },
  },
  getRegions: {
    description: "Regions of the service (BM workloads take an active one).",
    args: { activeOnly: { schema: z.boolean(), description: "Only active regions." } },
    result: { name: "regions", item: Region, description: "The regions." },
    async run(client, args) {
      const regions = await client.meta.regions();
      return { regions: camel(args.activeOnly ? regions.filter((r) => r.active) : regions) };
    },
  },
  getVmImages: {
    description: "Images a VM workload can boot (its `image` input).",
    args: { name: nameFilter },
    result: { name: "images", item: VmImage, description: "The VM images." },
    async run(client, args) {
      return { images: camel(byName(await client.workloads.vmImages(), args.name)) };
    },
  },
  getBmImages: {
    description: "Images a BM workload can install (its `image` input).",
    args: { name: nameFilter },
    result: { name: "images", item: BmImage, description: "The BM images." },
    async run(client, args) {
      return { images: camel(byName(await client.workloads.bmImages(), args.name)) };
    },
  },
  getWorkloadTemplates: {
    description: "Reusable workload templates visible to the org (manifests are not returned).",
    args: {
      type: { schema: z.enum(["RENTAL", "VM", "BM", "SANDBOX"]), description: "Workload type." },
      visibility: { schema: z.enum(["PUBLIC", "PRIVATE"]), description: "PUBLIC or PRIVATE." },
      name: nameFilter,
    },
    result: { name: "templates", item: WorkloadTemplateSummary, description: "The matching templates." },
    async run(client, args) {
      const query = {
        type: args.type as "RENTAL" | "VM" | "BM" | "SANDBOX" | undefined,
        visibility: args.visibility as "PUBLIC" | "PRIVATE" | undefined,
      };
      const items = byName(await collect(client.templates.iterate(query)), args.name);
      return { templates: camel(items.map(({ manifest: _m, ...rest }) => rest)) };
    },
  },
  getSshKeys: {
    description: "SSH keys of the org, e.g. to attach an existing key by name.",
    args: { name: nameFilter },
    result: { name: "keys", item: SshKey, description: "The matching keys." },
    async run(client, args) {
      return { keys: camel(byName(await collect(client.sshKeys.iterate({})), args.name)) };
    },
  },
  getVolumes: {
    description: "Volumes of the org, e.g. to mount an existing volume by name.",
    args: { name: nameFilter },
    result: { name: "volumes", item: Volume, description: "The matching volumes." },
    async run(client, args) {
      const live = (await collect(client.volumes.iterate({}))).filter((v) => !v.deleted_by);
      return { volumes: camel(byName(live, args.name)) };
    },
  },
};

/** Checks a function's arguments against its definition; failures name the argument. */
export function checkFunctionArgs(fn: FunctionDef, args: Props): { property: string; reason: string }[] {
  const failures: { property: string; reason: string }[] = [];
  for (const [k, v] of Object.entries(args)) {
    const arg = fn.args[k];
    if (!arg) {
      failures.push({
        property: k,
        reason: `unknown argument ${k}; expected ${Object.keys(fn.args).join(", ")}`,
      });
      continue;
    }
    const r = arg.schema.safeParse(v);
    if (!r.success)
      failures.push({ property: k, reason: `${k}: ${r.error.issues[0]?.message ?? "invalid"}` });
  }
  return failures;
}

/** Runs a lookup by name with checked arguments. */
export async function lookup(client: CwsClient, name: string, args: Props = {}): Promise<Props> {
  const fn = FUNCTIONS[name];
  if (!fn) throw new Error(`unknown cws function ${name}`);
  const failures = checkFunctionArgs(fn, args);
  if (failures.length) throw new Error(failures.map((f) => f.reason).join("; "));
  return fn.run(client, args);
}

export const getSandboxTemplates = (client: CwsClient, args: Props = {}) =>
  lookup(client, "getSandboxTemplates", args);
export const getRegions = (client: CwsClient, args: Props = {}) => lookup(client, "getRegions", args);
export const getVmImages = (client: CwsClient, args: Props = {}) => lookup(client, "getVmImages", args);
export const getBmImages = (client: CwsClient, args: Props = {}) => lookup(client, "getBmImages", args);
export const getWorkloadTemplates = (client: CwsClient, args: Props = {}) =>
  lookup(client, "getWorkloadTemplates", args);
export const getSshKeys = (client: CwsClient, args: Props = {}) => lookup(client, "getSshKeys", args);
export const getVolumes = (client: CwsClient, args: Props = {}) => lookup(client, "getVolumes", args);
