/**
 * The guardrails as a CrossGuard policy pack (`@pulumi/policy`): one policy per rule of rules.ts,
 * over the neutral view of the resources a preview or an update plans. The pack's directory is
 * `policy-pack/` in the npm package (its index.js starts this module); `pulumi preview
 * --policy-pack <dir> --policy-pack-config guardrails.json` runs it.
 *
 * - Resources of both Pulumi front ends: the native plugin's `cws:index:<Kind>` and the dynamic
 *   provider's `pulumi-nodejs:dynamic/cws:<Kind>`.
 * - Rules judged per resource run as each resource is planned (`validateResource`, inputs only),
 *   so even `up --skip-preview` creates nothing that breaks them; totals and the price table run
 *   at the end of the preview (`validateStack`), which also sees the outputs the state records
 *   (`costPerHour`), so `pulumi up` stops after its preview.
 * - The stack's name (for the BM rule) is read from each resource's URN.
 * - The rules share one configuration (the price table), while CrossGuard gives each policy its own
 *   entry: the pack keeps the whole configuration the engine sends (`Configure`) and validates it
 *   as `cws policy check` does (config.ts), failing the run when it has a mistake.
 */
import { createRequire } from "node:module";
import { ConfigError, parseGuardrails, RULE_NAMES, type Guardrails } from "./config.ts";
import { RULES } from "./rules.ts";
import { UNKNOWN, type Maybe, type PlannedResource, type PlannedStack } from "./view.ts";

const policyRequire = createRequire(createRequire(import.meta.url).resolve("@pulumi/policy"));
const policy = policyRequire("@pulumi/policy") as typeof import("@pulumi/policy");
type Props = Record<string, unknown>;

/** The kind of a cws resource type of either front end, or undefined for any other type. */
export function kindOf(type: string): string | undefined {
  return /^(?:cws:index:|pulumi-nodejs:dynamic\/cws:)(\w+)$/.exec(type)?.[1];
}

/** `urn:pulumi:<stack>::<project>::<type>::<name>`: the stack. */
export const stackOfUrn = (urn: string) => urn.split("::")[0]!.replace(/^urn:pulumi:/, "");

/** A property, UNKNOWN when the preview does not know it yet (the pack's proxy throws on those). */
function read(props: Props, key: string): Maybe<unknown> {
  try {
    const v = props[key];
    return v === null ? undefined : v;
  } catch (e) {
    if (e instanceof policy.UnknownValueError) return UNKNOWN;
    throw e;
  }
}

function str(props: Props, key: string): Maybe<string> {
  const v = read(props, key);
  return v === UNKNOWN || typeof v === "string" ? v : undefined;
}

function strings(props: Props, key: string): Maybe<string>[] {
  const v = read(props, key);
  if (v === UNKNOWN) return [UNKNOWN];
  if (!Array.isArray(v)) return [];
  return v.map((_, i) => str(v as unknown as Props, String(i)));
}

/** The neutral view of one resource, or undefined when it is not a workload or sandbox. */
export function plannedResource(type: string, urn: string, props: Props): PlannedResource | undefined {
  const kind = kindOf(type);
  if (kind !== "Workload" && kind !== "Sandbox") return undefined;
  const ttl = read(props, "ttlSec");
  const cost = read(props, "costPerHour");
  const present = (vs: Maybe<string>[]) => vs.filter((v) => v !== undefined);
  return {
    address: urn,
    kind,
    type: kind === "Sandbox" ? "SANDBOX" : str(props, "type"),
    resourceNames: present([str(props, "resourceName"), ...strings(props, "fallbackResourceNames")]),
    regions: present([str(props, "region"), ...strings(props, "fallbackRegions")]),
    ttlSec: ttl === UNKNOWN || typeof ttl === "number" ? ttl : undefined,
    projectId: str(props, "projectId"),
    template: str(props, "template"),
    recordedCostPerHour: typeof cost === "number" ? cost : undefined,
  };
}

/** The whole stack as `validateStack` sees it. */
function plannedStack(
  resources: { type: string; urn: string; props: Props }[],
  fallbackName: string,
): PlannedStack {
  const templateCosts = new Map<string, number>();
  const planned: PlannedResource[] = [];
  for (const r of resources) {
    if (kindOf(r.type) === "SandboxTemplate") {
      const uid = read(r.props, "uid");
      const cost = read(r.props, "costPerHour");
      if (typeof uid === "string" && typeof cost === "number") templateCosts.set(uid, cost);
    }
    const p = plannedResource(r.type, r.urn, r.props);
    if (p) planned.push(p);
  }
  const name = resources[0] ? stackOfUrn(resources[0].urn) : fallbackName;
  return { name, resources: planned, templateCosts };
}

/** The configuration the engine sends, as the guardrails file it came from. */
let guardrails: Guardrails = {};

interface ConfigureCall {
  request: {
    getPolicyconfigMap(): {
      entries(): Iterable<
        [string, { getEnforcementlevel(): number; getProperties(): { toJavaScript(): Props } }]
      >;
    };
  };
}
type Callback = (error: unknown, value?: unknown) => void;

/**
 * Keeps the whole configuration of each `Configure` call, validated (a mistake fails the call,
 * and the engine's run, with the field named), before @pulumi/policy's own handler stores each
 * policy's entry.
 */
function keepConfiguration(handler: (call: ConfigureCall, cb: Callback) => void) {
  const { convertEnforcementLevel } = policyRequire("@pulumi/policy/protoutil") as {
    convertEnforcementLevel(level: number): string;
  };
  return (call: ConfigureCall, callback: Callback) => {
    const file: Record<string, Props> = {};
    for (const [name, c] of call.request.getPolicyconfigMap().entries()) {
      const enforcementLevel = convertEnforcementLevel(c.getEnforcementlevel());
      // The engine passes `all` on as if it were a policy: the file had it as a level.
      if (name === "all") file.all = enforcementLevel as unknown as Props;
      else file[name] = { ...(c.getProperties()?.toJavaScript() ?? {}), enforcementLevel };
    }
    try {
      guardrails = parseGuardrails(file, "the policy pack's configuration (--policy-pack-config)");
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return callback({ code: 3, details: e.message, message: e.message });
    }
    handler(call, callback);
  };
}

/** Starts the pack (the analyzer's gRPC server; it prints its port for the engine). */
export function startPack(): void {
  type Policy =
    import("@pulumi/policy").ResourceValidationPolicy | import("@pulumi/policy").StackValidationPolicy;
  const policies: Policy[] = RULE_NAMES.map((name): Policy => {
    const rule = RULES[name] as (typeof RULES)[keyof typeof RULES] & {
      check(stack: PlannedStack, settings: unknown, all: Guardrails): { address?: string; message: string }[];
    };
    // The table needs the outputs the state records: it is judged with the totals.
    const atEnd = rule.scope === "stack" || name === "cws-resource-table";
    const run = (stack: PlannedStack, report: (message: string, urn?: string) => void) => {
      const on = guardrails[name];
      if (!on) return;
      for (const f of rule.check(stack, on.settings, guardrails)) report(f.message, f.address);
    };
    const common = { name, description: rule.description, enforcementLevel: "disabled" as const };
    if (atEnd)
      return {
        ...common,
        validateStack: (args, report) => run(plannedStack(args.resources, ""), report),
      };
    return {
      ...common,
      validateResource: (args, report) => {
        const r = plannedResource(args.type, args.urn, args.props);
        if (r) run({ name: stackOfUrn(args.urn), resources: [r], templateCosts: new Map() }, report);
      },
    };
  });

  // The pack's server registers its handlers here once, synchronously, as it is constructed.
  const grpc = policyRequire("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (this: unknown, service, implementation) {
    const impl = implementation as Record<string, unknown>;
    if (typeof impl.configure === "function")
      impl.configure = keepConfiguration(impl.configure as (call: ConfigureCall, cb: Callback) => void);
    return addService.call(this as InstanceType<typeof grpc.Server>, service, implementation);
  };
  try {
    new policy.PolicyPack("cws-guardrails", {
      policies,
      description:
        "Guardrails for the Compute Workload Service: GPU and cost ceilings, allowed types, resource names and regions, sandbox TTLs, BM stacks, projects.",
    });
  } finally {
    grpc.Server.prototype.addService = addService;
  }
}
