/**
 * The guardrail rules, written once over the neutral view (view.ts) and run by both front ends:
 * the CrossGuard pack (one policy per rule) and `cws policy check` over a Terraform/OpenTofu plan.
 *
 * Where the figures come from: prices and GPU counts from the file's table (`cws-resource-table`);
 * a sandbox's cost from its template's `cost_per_hour` where the plan or the state records it
 * (else the table's `sandboxTemplates`, else its resource name's price); an object that already
 * exists and keeps its placement counts the `cost_per_hour` its state records. A workload with
 * fallback resource names counts the dearest of them. Totals are over what the stack holds after
 * the update: a replaced object counts once, a deleted one not at all.
 */
import type { Guardrails, RuleName, Settings } from "./config.ts";
import { known, UNKNOWN, type PlannedResource, type PlannedStack } from "./view.ts";

export interface Finding {
  /** The resource's address (URN or HCL address); undefined for a finding on the whole stack. */
  address?: string;
  /** What is wrong (the resource is named by `address`, as each tool shows it). */
  message: string;
}

interface Rule<R extends RuleName> {
  /** `resource`: judged per resource (the pack checks it as each resource is planned); `stack`: totals. */
  scope: "resource" | "stack";
  description: string;
  check(stack: PlannedStack, settings: Settings<R>, all: Guardrails): Finding[];
}

type Table = Settings<"cws-resource-table">;

const isBm = (r: PlannedResource) => r.kind === "Workload" && r.type === "BM";
const names = (r: PlannedResource) => r.resourceNames.filter(known);

/** The GPUs of a resource: the table's count for its resource name (the most among fallbacks). */
export function gpusOf(r: PlannedResource, table: Table): number {
  return Math.max(0, ...names(r).map((n) => table.resources[n]?.gpus ?? 0));
}

/** The template cost of a sandbox, where the plan, the state or the table knows it. */
function templateCost(r: PlannedResource, stack: PlannedStack, table: Table): number | undefined {
  if (r.kind !== "Sandbox" || !known(r.template)) return undefined;
  return stack.templateCosts.get(r.template) ?? table.sandboxTemplates?.[r.template]?.usdPerHour;
}

/** USD per hour a resource will cost, or undefined when no figure is known (a table finding). */
export function costOf(r: PlannedResource, stack: PlannedStack, table: Table): number | undefined {
  if (r.recordedCostPerHour !== undefined) return r.recordedCostPerHour;
  const fromTemplate = templateCost(r, stack, table);
  if (fromTemplate !== undefined) return fromTemplate;
  const prices = names(r).map((n) => table.resources[n]?.usdPerHour);
  if (prices.length === 0 || prices.some((p) => p === undefined)) return undefined;
  return Math.max(...(prices as number[]));
}

const usd = (n: number) => `${Math.round(n * 100) / 100} USD/h`;

/** Each resource for which `bad` says what is wrong. */
const perResource =
  (bad: (r: PlannedResource, stack: PlannedStack) => string | undefined) =>
  (stack: PlannedStack): Finding[] =>
    stack.resources.flatMap((r) => {
      const message = bad(r, stack);
      return message ? [{ address: r.address, message }] : [];
    });

/** The values of a list not in `allowed`. */
const outside = (values: unknown[], allowed: readonly string[]) =>
  values.filter((v): v is string => typeof v === "string" && !allowed.includes(v));

export const RULES: { [R in RuleName]: Rule<R> } = {
  "cws-resource-table": {
    scope: "resource",
    description: "Every inventory resource name a workload or sandbox uses has a price in the table.",
    check: (stack, table) =>
      perResource((r, s) => {
        if (r.recordedCostPerHour !== undefined || templateCost(r, s, table) !== undefined) return undefined;
        const missing = outside(names(r), Object.keys(table.resources));
        if (missing.length)
          return `resource name ${missing.join(", ")} is not in the price table (cws-resource-table.resources), so its cost would go uncounted`;
        if (r.kind === "Sandbox" && names(r).length === 0 && known(r.template))
          return `the cost of template ${r.template} is not known: add it to cws-resource-table.sandboxTemplates or set the sandbox's resource name`;
        return undefined;
      })(stack),
  },
  "cws-allowed-types": {
    scope: "resource",
    description: "Workloads and sandboxes are of the allowed types only.",
    check: (stack, { types }) =>
      perResource((r) => {
        const t = r.kind === "Sandbox" ? "SANDBOX" : r.type;
        return known(t) && !(types as string[]).includes(t)
          ? `type ${t} is not allowed (allowed: ${types.join(", ")})`
          : undefined;
      })(stack),
  },
  "cws-allowed-resource-names": {
    scope: "resource",
    description: "Workloads and sandboxes use the allowed inventory resource names only.",
    check: (stack, { names: allowed }) =>
      perResource((r) => {
        const bad = outside(r.resourceNames, allowed);
        return bad.length
          ? `resource name ${bad.join(", ")} is not allowed (allowed: ${allowed.join(", ")})`
          : undefined;
      })(stack),
  },
  "cws-allowed-regions": {
    scope: "resource",
    description: "Workloads run in the allowed regions only.",
    check: (stack, { regions }) =>
      perResource((r) => {
        const bad = outside(r.regions, regions);
        return bad.length
          ? `region ${bad.join(", ")} is not allowed (allowed: ${regions.join(", ")})`
          : undefined;
      })(stack),
  },
  "cws-gpus-per-workload": {
    scope: "resource",
    description: "No workload has more GPUs than the limit.",
    check: (stack, { max }, all) =>
      perResource((r) => {
        const gpus = gpusOf(r, all["cws-resource-table"]!.settings);
        return gpus > max ? `${gpus} GPUs, over the ${max} allowed per workload` : undefined;
      })(stack),
  },
  "cws-gpus-per-stack": {
    scope: "stack",
    description: "The stack holds no more GPUs than the limit after the update.",
    check: (stack, { max }, all) => {
      const table = all["cws-resource-table"]!.settings;
      const counted = stack.resources.map((r) => [r, gpusOf(r, table)] as const).filter(([, g]) => g > 0);
      const total = counted.reduce((n, [, g]) => n + g, 0);
      if (total <= max) return [];
      const list = counted.map(([r, g]) => `${r.address} (${g})`).join(", ");
      return [{ message: `stack ${stack.name} would hold ${total} GPUs, over the ${max} allowed: ${list}` }];
    },
  },
  "cws-cost-per-stack": {
    scope: "stack",
    description: "The stack costs no more per hour than the limit after the update.",
    check: (stack, { maxUsdPerHour }, all) => {
      const table = all["cws-resource-table"]!.settings;
      const counted = stack.resources
        .map((r) => [r, costOf(r, stack, table) ?? 0] as const)
        .filter(([, c]) => c > 0);
      const total = counted.reduce((n, [, c]) => n + c, 0);
      if (total <= maxUsdPerHour + 1e-9) return [];
      const list = counted.map(([r, c]) => `${r.address} (${usd(c)})`).join(", ");
      return [
        {
          message: `stack ${stack.name} would cost ${usd(total)}, over the ${usd(maxUsdPerHour)} allowed: ${list}`,
        },
      ];
    },
  },
  "cws-sandbox-ttl": {
    scope: "resource",
    description: "Every sandbox sets a TTL (ttlSec), at most the limit.",
    check: (stack, { maxTtlSec }) =>
      perResource((r) => {
        if (r.kind !== "Sandbox" || r.ttlSec === UNKNOWN) return undefined;
        const ttl = r.ttlSec;
        if (!ttl) return "sets no TTL (ttlSec): it would run until someone deletes it";
        return maxTtlSec !== undefined && ttl > maxTtlSec
          ? `TTL ${ttl} s is over the ${maxTtlSec} s allowed`
          : undefined;
      })(stack),
  },
  "cws-bm-stacks": {
    scope: "resource",
    description: "BM workloads only in stacks whose name matches the pattern.",
    check: (stack, { stackPattern }) =>
      perResource((r, s) =>
        isBm(r) && !new RegExp(stackPattern).test(s.name)
          ? `BM in stack ${s.name}, whose name does not match ${stackPattern}`
          : undefined,
      )(stack),
  },
  "cws-required-project": {
    scope: "resource",
    description: "Every workload and sandbox names a project (one of the listed ones, when listed).",
    check: (stack, { projects }) =>
      perResource((r) => {
        if (r.projectId === undefined || r.projectId === "") return "sets no project (projectId)";
        if (!known(r.projectId) || !projects || projects.includes(r.projectId)) return undefined;
        return `project ${r.projectId} is not allowed (allowed: ${projects.join(", ")})`;
      })(stack),
  },
};

export interface Violation extends Finding {
  rule: RuleName;
  level: "mandatory" | "advisory";
}

/** Every rule the guardrails turn on, over the stack: what each finds, in rule order. */
export function evaluate(stack: PlannedStack, guardrails: Guardrails): Violation[] {
  const out: Violation[] = [];
  for (const name of Object.keys(RULES) as RuleName[]) {
    const on = guardrails[name];
    if (!on) continue;
    const rule = RULES[name] as Rule<RuleName>;
    for (const f of rule.check(stack, on.settings, guardrails))
      out.push({ ...f, rule: name, level: on.level });
  }
  return out;
}
