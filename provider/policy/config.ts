/**
 * The guardrails file: one JSON (or YAML) file that both front ends read, the CrossGuard pack as
 * its `--policy-pack-config` (Pulumi reads that file as JSON only) and `cws policy check --config`.
 * Its shape is Pulumi's policy pack configuration: one key per rule (the pack's policy of that
 * name), each a string (the enforcement level) or an object with `enforcementLevel` and the
 * rule's settings; `all` sets the level of every rule, named or not, as Pulumi applies it. A rule
 * the file does not name is off (the pack's policies are disabled by default), and a rule it names
 * must say its level (Pulumi would leave it disabled without one). Validated with zod: an error names the field (`cws-gpus-per-stack.max`) and
 * the rule it breaks.
 */
import { load } from "js-yaml";
import { z } from "zod";
import { WORKLOAD_TYPES } from "../../api/workload.ts";

export const LEVELS = ["mandatory", "advisory", "disabled"] as const;
export type Level = (typeof LEVELS)[number];
const Level = z.enum(LEVELS);

const names = z.array(z.string().min(1)).min(1);
const count = z.number().int().nonnegative();

/** A resource's price and GPUs (the service has no price list: the team states them here). */
const Priced = z.strictObject({ usdPerHour: z.number().nonnegative(), gpus: count.default(0) });

/** Each rule's settings, by its name (the pack's policy name). */
export const RULE_SETTINGS = {
  /** The price table: every inventory resource name a plan uses must be in it. */
  "cws-resource-table": z.strictObject({
    resources: z.record(z.string().min(1), Priced),
    /** Sandbox templates by uid: their cost_per_hour, where no plan or state records it. */
    sandboxTemplates: z
      .record(z.string().min(1), z.strictObject({ usdPerHour: z.number().nonnegative() }))
      .optional(),
  }),
  "cws-allowed-types": z.strictObject({ types: z.array(z.enum(WORKLOAD_TYPES)).min(1) }),
  "cws-allowed-resource-names": z.strictObject({ names }),
  "cws-allowed-regions": z.strictObject({ regions: names }),
  "cws-gpus-per-workload": z.strictObject({ max: count }),
  "cws-gpus-per-stack": z.strictObject({ max: count }),
  "cws-cost-per-stack": z.strictObject({ maxUsdPerHour: z.number().nonnegative() }),
  "cws-sandbox-ttl": z.strictObject({ maxTtlSec: z.number().int().positive().optional() }),
  "cws-bm-stacks": z.strictObject({ stackPattern: z.string().min(1) }),
  "cws-required-project": z.strictObject({ projects: names.optional() }),
} as const;

export type RuleName = keyof typeof RULE_SETTINGS;
export const RULE_NAMES = Object.keys(RULE_SETTINGS) as RuleName[];
export type Settings<R extends RuleName> = z.output<(typeof RULE_SETTINGS)[R]>;

/** The rules a file turns on: each with its level and settings. */
export type Guardrails = { [R in RuleName]?: { level: Exclude<Level, "disabled">; settings: Settings<R> } };

/** Rules that price or count GPUs, which need the table. */
const NEED_TABLE: RuleName[] = ["cws-gpus-per-workload", "cws-gpus-per-stack", "cws-cost-per-stack"];

export class ConfigError extends Error {}

/** The issue zod found, as `field: rule`. */
function describe(prefix: string, issue: z.core.$ZodIssue): string {
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
  return `${path}: ${issue.message}`;
}

/**
 * The guardrails of a parsed file (an object of rule names). A rule given as a string has its
 * level only; an object may leave `enforcementLevel` out only when `all` gives one.
 */
export function parseGuardrails(value: unknown, source = "the guardrails file"): Guardrails {
  const problems: string[] = [];
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConfigError(`${source}: must be an object of rules (${RULE_NAMES.join(", ")})`);
  const entries = { ...(value as Record<string, unknown>) };
  let all: Level | undefined;
  if ("all" in entries) {
    const parsed = Level.safeParse(entries.all);
    if (parsed.success) all = parsed.data;
    else problems.push(`all: must be one of ${LEVELS.join(", ")}`);
    delete entries.all;
  }
  const out: Record<string, { level: Level; settings: unknown }> = {};
  for (const name of Object.keys(entries))
    if (!(name in RULE_SETTINGS)) problems.push(`${name}: not a rule (the rules: ${RULE_NAMES.join(", ")})`);
  // As Pulumi applies it: `all` gives every rule of the pack its level, named in the file or not.
  for (const name of RULE_NAMES) {
    if (!(name in entries) && all === undefined) continue;
    const entry = entries[name];
    let level: Level | undefined = all;
    let settings: unknown = {};
    if (typeof entry === "string") {
      const parsed = Level.safeParse(entry);
      if (!parsed.success) {
        problems.push(`${name}: must be one of ${LEVELS.join(", ")}, or an object of settings`);
        continue;
      }
      level = parsed.data;
    } else if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) {
      const { enforcementLevel, ...rest } = entry as Record<string, unknown>;
      if (enforcementLevel !== undefined) {
        const parsed = Level.safeParse(enforcementLevel);
        if (!parsed.success) {
          problems.push(`${name}.enforcementLevel: must be one of ${LEVELS.join(", ")}`);
          continue;
        }
        level = parsed.data;
      }
      settings = rest;
    } else if (entry !== undefined) {
      problems.push(`${name}: must be an enforcement level or an object of settings`);
      continue;
    }
    if (level === undefined) {
      // Pulumi would leave the rule disabled (the pack's default): say so instead of guessing.
      problems.push(`${name}.enforcementLevel: required (${LEVELS.join(", ")}), or set "all"`);
      continue;
    }
    if (level === "disabled") continue;
    const parsed = RULE_SETTINGS[name].safeParse(settings);
    if (!parsed.success) problems.push(...parsed.error.issues.map((i) => describe(name, i)));
    else out[name] = { level, settings: parsed.data };
  }
  for (const name of NEED_TABLE)
    if (out[name] && !out["cws-resource-table"])
      problems.push(`${name}: needs cws-resource-table (the prices and GPU counts it counts with)`);
  const bm = out["cws-bm-stacks"]?.settings as { stackPattern: string } | undefined;
  if (bm) {
    try {
      new RegExp(bm.stackPattern);
    } catch (e) {
      problems.push(`cws-bm-stacks.stackPattern: not a regular expression (${(e as Error).message})`);
    }
  }
  if (problems.length) throw new ConfigError(`${source} is not valid:\n  ${problems.join("\n  ")}`);
  return out as Guardrails;
}

/** The guardrails in a file's text: JSON, or YAML (a superset of JSON). */
export function readGuardrails(text: string, source: string): Guardrails {
  let value: unknown;
  try {
    value = load(text);
  } catch (e) {
    throw new ConfigError(`${source}: not JSON or YAML (${(e as Error).message.split("\n")[0]})`);
  }
  return parseGuardrails(value ?? {}, source);
}
