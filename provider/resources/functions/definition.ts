/**
 * Lookups (Pulumi functions): read-only queries a program makes to find what to build on, such as
 * a READY sandbox template, an active region or an image name. Each is stated once here (its
 * arguments, all optional filters, and its result, typed by the api/ contract) and served by the
 * native plugin as `cws:index:<name>`; its schema comes from here.
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

export interface FunctionSpec {
  description: string;
  /** Arguments (camelCase), all optional filters. */
  args: Record<string, { schema: z.ZodType; description: string }>;
  /** The result: one list property, typed by the api/ contract (wire names become camelCase). */
  result: { name: string; item: z.ZodObject; description: string };
}

const nameFilter = { schema: z.string(), description: "Only the ones with exactly this name." };

/** A lookup whose only argument is the name filter. */
function byName(description: string, result: string, item: z.ZodObject, items: string): FunctionSpec {
  return { description, args: { name: nameFilter }, result: { name: result, item, description: items } };
}

/** A workload template as a lookup returns it: without its manifest, which may hold passwords. */
const WorkloadTemplateSummary = WorkloadTemplate.omit({ manifest: true });

export const FUNCTION_DEFINITIONS = {
  getSandboxTemplates: {
    description: "Sandbox templates of the org (FRESH ones from the service and USER ones published).",
    args: {
      kind: { schema: z.enum(SANDBOX_TEMPLATE_KINDS), description: "FRESH or USER." },
      status: { schema: z.enum(SANDBOX_TEMPLATE_STATUSES), description: "PENDING, READY or FAILED." },
      name: nameFilter,
    },
    result: { name: "templates", item: SandboxTemplate, description: "The matching templates." },
  },
  getRegions: {
    description: "Regions of the service (BM workloads take an active one).",
    args: { activeOnly: { schema: z.boolean(), description: "Only active regions." } },
    result: { name: "regions", item: Region, description: "The regions." },
  },
  getVmImages: byName(
    "Images a VM workload can boot (its `image` input).",
    "images",
    VmImage,
    "The VM images.",
  ),
  getBmImages: byName(
    "Images a BM workload can install (its `image` input).",
    "images",
    BmImage,
    "The BM images.",
  ),
  getWorkloadTemplates: {
    description: "Reusable workload templates visible to the org (manifests are not returned).",
    args: {
      type: { schema: z.enum(["RENTAL", "VM", "BM", "SANDBOX"]), description: "Workload type." },
      visibility: { schema: z.enum(["PUBLIC", "PRIVATE"]), description: "PUBLIC or PRIVATE." },
      name: nameFilter,
    },
    result: { name: "templates", item: WorkloadTemplateSummary, description: "The matching templates." },
  },
  getSshKeys: byName(
    "SSH keys of the org, e.g. to attach an existing key by name.",
    "keys",
    SshKey,
    "The matching keys.",
  ),
  getVolumes: byName(
    "Volumes of the org, e.g. to mount an existing volume by name.",
    "volumes",
    Volume,
    "The matching volumes.",
  ),
} satisfies Record<string, FunctionSpec>;
