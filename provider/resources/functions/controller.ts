/**
 * The lookups' calls to the API: each is plain TypeScript over the client
 * (`await getRegions(client, {})`), run by the native plugin's Invoke and the OpenTofu provider's
 * data sources; the workload reads' calls are in workload-reads-controller.ts.
 */
import type { SANDBOX_TEMPLATE_KINDS, SANDBOX_TEMPLATE_STATUSES } from "../../../api/index.ts";
import type { CwsClient } from "../../../client/index.ts";
import { fromWire } from "../../core/wire.ts";
import { FUNCTION_DEFINITIONS, type FunctionSpec } from "./definition.ts";
import { WORKLOAD_READ_RUNS } from "./workload-reads-controller.ts";

type Props = Record<string, unknown>;

export interface FunctionDef extends FunctionSpec {
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

type Run = FunctionDef["run"];

const RUN: Record<keyof typeof FUNCTION_DEFINITIONS, Run> = {
  async getSandboxTemplates(client, args) {
    const query = {
      kind: args.kind as (typeof SANDBOX_TEMPLATE_KINDS)[number] | undefined,
      status: args.status as (typeof SANDBOX_TEMPLATE_STATUSES)[number] | undefined,
    };
    return { templates: camel(byName(await collect(client.sandboxTemplates.iterate(query)), args.name)) };
  },
  async getRegions(client, args) {
    const regions = await client.meta.regions();
    return { regions: camel(args.activeOnly ? regions.filter((r) => r.active) : regions) };
  },
  async getVmImages(client, args) {
    return { images: camel(byName(await client.workloads.vmImages(), args.name)) };
  },
  async getBmImages(client, args) {
    return { images: camel(byName(await client.workloads.bmImages(), args.name)) };
  },
  async getWorkloadTemplates(client, args) {
    const query = {
      type: args.type as "RENTAL" | "VM" | "BM" | "SANDBOX" | undefined,
      visibility: args.visibility as "PUBLIC" | "PRIVATE" | undefined,
    };
    const items = byName(await collect(client.templates.iterate(query)), args.name);
    return { templates: camel(items.map(({ manifest: _m, ...rest }) => rest)) };
  },
  async getSshKeys(client, args) {
    return { keys: camel(byName(await collect(client.sshKeys.iterate({})), args.name)) };
  },
  async getVolumes(client, args) {
    const live = (await collect(client.volumes.iterate({}))).filter((v) => !v.deleted_by);
    return { volumes: camel(byName(live, args.name)) };
  },
  ...WORKLOAD_READ_RUNS,
};

export const FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries(
  Object.entries(FUNCTION_DEFINITIONS).map(([name, spec]) => [
    name,
    { ...spec, run: RUN[name as keyof typeof RUN] },
  ]),
);

/**
 * Checks a function's arguments against its definition: each known and valid, the required ones
 * given, then its rules across arguments. Failures name the argument. `known`: false while some
 * values are not known yet (a plan), when a missing one may still come.
 */
export function checkFunctionArgs(
  fn: FunctionDef,
  args: Props,
  known = true,
): { property: string; reason: string }[] {
  const failures: { property: string; reason: string }[] = [];
  if (known)
    for (const [k, arg] of Object.entries(fn.args))
      if (arg.required && (args[k] === undefined || args[k] === null))
        failures.push({ property: k, reason: `${k} is required` });
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
  if (!failures.length && known && fn.validate) failures.push(...fn.validate(args));
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
export const getWorkload = (client: CwsClient, args: Props) => lookup(client, "getWorkload", args);
export const getWorkloadEvents = (client: CwsClient, args: Props) =>
  lookup(client, "getWorkloadEvents", args);
export const getWorkloadLogs = (client: CwsClient, args: Props) => lookup(client, "getWorkloadLogs", args);
