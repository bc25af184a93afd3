/**
 * Where a workload may run: `resourceName` and its `fallbackResourceNames`, and for BM `region`
 * and its `fallbackRegions`, in order of preference. Their inputs and check rules, the candidates
 * a create tries (place.ts), what a change of the lists does (in place while the workload's
 * placement stays a candidate, a replacement otherwise) and how a refresh reads them back.
 */
import { z } from "zod";
import { regionViolation } from "../../../api/index.ts";
import { waitForCapacity, type InputDef, type Placement } from "../../core/definition.ts";
import { durationFailure } from "../../core/timeouts.ts";
import type { CheckFailure, Props } from "../../core/types.ts";
import { UNKNOWN, containsUnknown } from "../../core/unknowns.ts";

/** The provider's inputs of a workload's placement (none of them is sent to the service). */
export const PLACEMENT_INPUTS: Record<string, InputDef> = {
  fallbackResourceNames: {
    type: z.array(z.string()),
    description:
      "Inventory resources of the same type acceptable after resourceName, in order of preference: when the service has no capacity for one, create registers the workload again on the next (docs/capacity.md). A change of the list is applied in place while the workload's resource stays in it.",
    change: "update",
    role: "provider",
  },
  fallbackRegions: {
    type: z.array(z.string()),
    description:
      "Regions acceptable after region, in order of preference, tried for each resource in turn when a region has no bare-metal capacity. Workload types: BM.",
    change: "update",
    role: "provider",
  },
  waitForCapacity: waitForCapacity(
    "when every candidate is refused for capacity, create tries them again, with backoff, until it passes; default: it fails at once.",
  ),
};

/** One place a create may register the workload: a resource, and for BM a region. */
export interface Candidate {
  resourceName: string;
  region?: string;
}

/** A candidate in words: "gpu-rental-large", "bm-h100-8x in eu-west-1". */
export const candidateWords = (c: Candidate) =>
  c.region ? `${c.resourceName} in ${c.region}` : c.resourceName;

const list = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);

/** The acceptable resources, preferred first. */
export const resourcesOf = (p: Props): unknown[] => [p.resourceName, ...list(p.fallbackResourceNames)];

/** The acceptable regions of a BM workload, preferred first (none for other types). */
export const regionsOf = (p: Props): unknown[] =>
  p.type === "BM" ? [p.region, ...list(p.fallbackRegions)] : [];

/** Whether the program lists fallbacks (a workload without any keeps its one resource and region). */
export const hasFallbacks = (p: Props) =>
  list(p.fallbackResourceNames).length > 0 || list(p.fallbackRegions).length > 0;

/**
 * The candidates in the order a create tries them: each resource, preferred first, in each
 * region in turn (a resource is preferred to a region).
 */
export function candidatesOf(p: Props): Candidate[] {
  const regions = p.type === "BM" ? (regionsOf(p) as string[]) : [undefined];
  return (resourcesOf(p) as string[]).flatMap((resourceName) =>
    regions.map((region) => (region === undefined ? { resourceName } : { resourceName, region })),
  );
}

/** Each entry of the list `property` that is empty, not a string or already listed (`before` first). */
function entryFailures(
  property: string,
  value: unknown,
  before: unknown,
  noun: string,
  rule?: (field: string, v: string) => string | undefined,
): CheckFailure[] {
  if (value === undefined || value === UNKNOWN) return [];
  if (!Array.isArray(value)) return [{ property, reason: `${property} must be a list of ${noun}s` }];
  const seen = new Set<unknown>([before]);
  const out: CheckFailure[] = [];
  value.forEach((v: unknown, i) => {
    const at = `${property}[${i}]`;
    if (v === UNKNOWN) return;
    if (typeof v !== "string" || v === "") out.push({ property: at, reason: `${at} must name a ${noun}` });
    else if (seen.has(v))
      out.push({
        property: at,
        reason: `${at} repeats ${JSON.stringify(v)}: each ${noun} is listed once, the first choice included`,
      });
    else {
      const broken = rule?.(at, v);
      if (broken) out.push({ property: at, reason: broken });
    }
    seen.add(v);
  });
  return out;
}

/** The check rules of the placement inputs: lists of distinct names, regions for BM only, a duration. */
export function placementFailures(news: Props): CheckFailure[] {
  const out = entryFailures(
    "fallbackResourceNames",
    news.fallbackResourceNames,
    news.resourceName,
    "resource",
  );
  if (news.fallbackRegions !== undefined && news.type !== "BM" && news.type !== UNKNOWN) {
    out.push({
      property: "fallbackRegions",
      reason: `fallbackRegions is only supported for BM workloads (type is ${String(news.type)})`,
    });
  } else {
    out.push(
      ...entryFailures(
        "fallbackRegions",
        news.fallbackRegions,
        news.region,
        "region",
        (at, v) => regionViolation(at, v)?.message,
      ),
    );
  }
  const wait = durationFailure("waitForCapacity", news.waitForCapacity);
  if (wait) out.push(wait);
  return out;
}

/** Where the workload runs, as its last outputs say (state written before the outputs: its inputs). */
const placedResource = (olds: Props) => (olds.placedResourceName ?? olds.resourceName) as string | undefined;
const placedRegion = (olds: Props) => (olds.placedRegion ?? olds.region) as string | undefined;

/** Definition.placement of the Workload. */
export const placement: Placement = {
  inputs: ["resourceName", "fallbackResourceNames", "region", "fallbackRegions"],
  moves(olds, news) {
    const lists = ["type", "resourceName", "fallbackResourceNames", "region", "fallbackRegions"];
    if (containsUnknown(lists.map((k) => news[k]))) return undefined;
    // Without fallbacks, before or after, resourceName and region replace as they always did.
    if (!hasFallbacks(olds) && !hasFallbacks(news)) return undefined;
    const resource = placedResource(olds);
    if (resource !== undefined && !resourcesOf(news).includes(resource))
      return `it runs on ${resource}, which is no longer resourceName or one of fallbackResourceNames: a new workload replaces it`;
    const region = placedRegion(olds);
    if (news.type === "BM" && region !== undefined && !regionsOf(news).includes(region))
      return `it runs in region ${region}, which is no longer region or one of fallbackRegions: a new workload replaces it`;
    return false;
  },
};

/**
 * The placement inputs as a refresh reads them: the program's first choices while the service's
 * resource and region are among its candidates (a workload never moves back by itself, and one
 * placed on a fallback is what the program asked for), else what the service has; the lists and
 * the wait as the program set them. `read`: the resource and region the service reports.
 */
export function placementInputs(read: Props, olds: Props): Props {
  const keep = (have: unknown, acceptable: unknown[], first: unknown) =>
    have !== undefined && first !== undefined && acceptable.includes(have) ? first : have;
  return {
    resourceName: keep(read.resourceName, resourcesOf(olds), olds.resourceName),
    region: keep(read.region, regionsOf(olds), olds.region),
    fallbackResourceNames: olds.fallbackResourceNames,
    fallbackRegions: olds.fallbackRegions,
    waitForCapacity: olds.waitForCapacity,
  };
}
