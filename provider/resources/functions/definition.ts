/**
 * Lookups (Pulumi functions): read-only queries a program makes to find what to build on, such as
 * a READY sandbox template, an active region or an image name, or to read what happened to a
 * workload (workload-reads.ts). Each is stated once here (its arguments and its result, typed by
 * the api/ contract) and served by the native plugin as `cws:index:<name>` and by the OpenTofu
 * provider as a data source; its schema comes from here.
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
import { listOf, type FunctionSpec } from "./spec.ts";
import { WORKLOAD_READS } from "./workload-reads.ts";

export type { FunctionSpec };

const nameFilter = { schema: z.string(), description: "Only the ones with exactly this name." };

/** A lookup whose only argument is the name filter. */
function byName(description: string, result: string, item: z.ZodObject, items: string): FunctionSpec {
  return { description, args: { name: nameFilter }, result: listOf(result, item, items) };
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
    result: listOf("templates", SandboxTemplate, "The matching templates."),
  },
  getRegions: {
    description: "Regions of the service (BM workloads take an active one).",
    args: { activeOnly: { schema: z.boolean(), description: "Only active regions." } },
    result: listOf("regions", Region, "The regions."),
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
    result: listOf("templates", WorkloadTemplateSummary, "The matching templates."),
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
  ...WORKLOAD_READS,
} satisfies Record<string, FunctionSpec>;
