/**
 * The neutral view (view.ts) of an OpenTofu or Terraform plan, as `tofu show -json PLAN` and
 * `terraform show -json PLAN` print it: the workloads and sandboxes the state will hold after the
 * apply (`resource_changes` without the deletes; a replace is one object), values the plan
 * computes later (`after_unknown`) marked unknown, and the `cost_per_hour` the prior state records
 * for objects that stay where they are (no-op and in-place updates), and for sandbox templates
 * (the `cws_sandbox_template` resources and the `cws_sandbox_templates` data source).
 */
import { UNKNOWN, type Maybe, type PlannedResource, type PlannedStack } from "./view.ts";

type Json = Record<string, unknown>;

interface ResourceChange {
  address: string;
  mode: string;
  type: string;
  change: { actions: string[]; before?: Json | null; after?: Json | null; after_unknown?: Json | null };
}

interface ModuleValues {
  resources?: { type: string; mode: string; values?: Json }[];
  child_modules?: ModuleValues[];
}

const KINDS: Record<string, PlannedResource["kind"]> = { cws_workload: "Workload", cws_sandbox: "Sandbox" };

/** Every object (at any depth) with a uid and a cost_per_hour: a sandbox template's record. */
function templateRecords(value: unknown, into: Map<string, number>): void {
  if (Array.isArray(value)) return value.forEach((v) => templateRecords(v, into));
  if (typeof value !== "object" || value === null) return;
  const v = value as Json;
  if (typeof v.uid === "string" && typeof v.cost_per_hour === "number") into.set(v.uid, v.cost_per_hour);
  for (const child of Object.values(v)) if (typeof child === "object") templateRecords(child, into);
}

function moduleTemplates(m: ModuleValues | undefined, into: Map<string, number>): void {
  for (const r of m?.resources ?? [])
    if (r.type === "cws_sandbox_template" || r.type === "cws_sandbox_templates")
      templateRecords(r.values, into);
  for (const c of m?.child_modules ?? []) moduleTemplates(c, into);
}

/** The plan's view of one attribute: its planned value, or UNKNOWN. */
function reader(after: Json, unknown: Json) {
  const one = (key: string): Maybe<unknown> => (unknown[key] === true ? UNKNOWN : (after[key] ?? undefined));
  const str = (key: string): Maybe<string> => {
    const v = one(key);
    return v === UNKNOWN || typeof v === "string" ? v : undefined;
  };
  const list = (key: string): Maybe<string>[] => {
    if (unknown[key] === true) return [UNKNOWN];
    const v = after[key];
    const marks = Array.isArray(unknown[key]) ? (unknown[key] as unknown[]) : [];
    return Array.isArray(v)
      ? v.map((x, i): Maybe<string> => (marks[i] === true ? UNKNOWN : (x as string)))
      : [];
  };
  return { one, str, list };
}

const present = (values: Maybe<string>[]): Maybe<string>[] => values.filter((v) => v !== undefined);

/** The stack `name` will hold after applying the plan `plan` (the parsed JSON). */
export function planView(plan: unknown, name: string): PlannedStack {
  const p = plan as {
    format_version?: string;
    resource_changes?: ResourceChange[];
    prior_state?: { values?: { root_module?: ModuleValues } };
    planned_values?: { root_module?: ModuleValues };
  };
  if (typeof p !== "object" || p === null || typeof p.format_version !== "string")
    throw new Error(
      "not the JSON of a plan: run `tofu show -json PLANFILE` (or `terraform show -json PLANFILE`)",
    );
  const templateCosts = new Map<string, number>();
  moduleTemplates(p.prior_state?.values?.root_module, templateCosts);
  const resources: PlannedResource[] = [];
  for (const rc of p.resource_changes ?? []) {
    const kind = KINDS[rc.type];
    const actions = rc.change.actions;
    if (
      rc.mode !== "managed" ||
      !kind ||
      !rc.change.after ||
      actions.every((a) => a === "delete" || a === "read")
    )
      continue;
    const { one, str, list } = reader(rc.change.after, rc.change.after_unknown ?? {});
    const stays = actions.every((a) => a === "no-op" || a === "update");
    const recorded = rc.change.before?.cost_per_hour;
    const ttl = one("ttl_sec");
    resources.push({
      address: rc.address,
      kind,
      type: kind === "Sandbox" ? "SANDBOX" : str("type"),
      resourceNames: present([str("resource_name"), ...list("fallback_resource_names")]),
      regions: present([str("region"), ...list("fallback_regions")]),
      ttlSec: ttl === UNKNOWN || typeof ttl === "number" ? ttl : undefined,
      projectId: str("project_id"),
      template: str("template"),
      recordedCostPerHour: stays && typeof recorded === "number" ? recorded : undefined,
    });
  }
  return { name, resources, templateCosts };
}
