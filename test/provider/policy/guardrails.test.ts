/**
 * The guardrails' rules, their file and the two views they run over (a Pulumi preview's resources,
 * an OpenTofu/Terraform plan's JSON), without an engine: the end-to-end suites
 * (test/e2e/guardrails/) run them under the real tools.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { ConfigError, parseGuardrails, readGuardrails } from "../../../provider/policy/config.ts";
import { kindOf, plannedResource, stackOfUrn } from "../../../provider/policy/pack.ts";
import { planView } from "../../../provider/policy/plan.ts";
import { evaluate } from "../../../provider/policy/rules.ts";
import type { PlannedStack } from "../../../provider/policy/view.ts";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "guardrails");
const GUARDRAILS = readGuardrails(readFileSync(join(FIXTURES, "guardrails.json"), "utf8"), "guardrails.json");

type Action = "create" | "delete" | "update" | "no-op";
interface Change {
  address: string;
  type?: string;
  actions: Action[];
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  unknown?: Record<string, unknown>;
}

/** A plan as `tofu show -json` prints it, with the given resource changes. */
function plan(changes: Change[], priorResources: unknown[] = []) {
  return {
    format_version: "1.2",
    prior_state: { values: { root_module: { resources: priorResources } } },
    resource_changes: changes.map((c) => ({
      address: c.address,
      mode: "managed",
      type: c.type ?? "cws_workload",
      change: {
        actions: c.actions,
        before: c.before ?? null,
        after: c.actions.includes("delete") && !c.actions.includes("create") ? null : (c.after ?? {}),
        after_unknown: c.unknown ?? {},
      },
    })),
  };
}

const rental = (resourceName: string, extra: Record<string, unknown> = {}) => ({
  type: "RENTAL",
  resource_name: resourceName,
  project_id: "ml",
  ...extra,
});

const rules = (stack: PlannedStack) => evaluate(stack, GUARDRAILS).map((v) => [v.rule, v.level, v.address]);

describe("the guardrails file", () => {
  it("names the field and the rule of each mistake, YAML or JSON", () => {
    const text = readFileSync(join(FIXTURES, "mistake.yaml"), "utf8");
    expect(() => readGuardrails(text, "mistake.yaml")).toThrow(ConfigError);
    const message = (() => {
      try {
        readGuardrails(text, "mistake.yaml");
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(message).toMatch(/^mistake\.yaml is not valid:/);
    expect(message).toMatch(/cws-gpus-per-stack\.max: Invalid input: expected number, received string/);
    expect(message).toMatch(/cws-gpu-per-stack: not a rule \(the rules: cws-resource-table, /);
  });

  it("wants each rule's level, or `all`, as Pulumi would otherwise leave the rule disabled", () => {
    expect(() => parseGuardrails({ "cws-sandbox-ttl": { maxTtlSec: 60 } })).toThrow(
      /cws-sandbox-ttl\.enforcementLevel: required \(mandatory, advisory, disabled\)/,
    );
    expect(parseGuardrails({ "cws-sandbox-ttl": "advisory" })).toEqual({
      "cws-sandbox-ttl": { level: "advisory", settings: {} },
    });
    // `all` reaches every rule, as Pulumi applies it to every policy of the pack.
    expect(() => parseGuardrails({ all: "mandatory", "cws-sandbox-ttl": {} })).toThrow(
      /cws-allowed-types\.types: Invalid input/,
    );
    expect(() =>
      parseGuardrails({ "cws-cost-per-stack": { enforcementLevel: "mandatory", maxUsdPerHour: 3 } }),
    ).toThrow(/cws-cost-per-stack: needs cws-resource-table/);
    expect(() =>
      parseGuardrails({ "cws-bm-stacks": { enforcementLevel: "advisory", stackPattern: "(" } }),
    ).toThrow(/cws-bm-stacks\.stackPattern: not a regular expression/);
    expect(parseGuardrails({ "cws-bm-stacks": { enforcementLevel: "disabled", stackPattern: "x" } })).toEqual(
      {},
    );
  });
});

describe("the rules over a plan", () => {
  it("pass a stack within its limits silently", () => {
    const view = planView(
      plan([
        { address: "cws_workload.web", actions: ["create"], after: rental("gpu-rental-small") },
        {
          address: "cws_sandbox.dev",
          type: "cws_sandbox",
          actions: ["create"],
          after: { template: "tpl-ubuntu-headless", ttl_sec: 3600, project_id: "ml" },
        },
      ]),
      "dev",
    );
    expect(rules(view)).toEqual([]);
  });

  it("count what the stack holds after the update: a replace once, a delete not, a kept object at its recorded cost", () => {
    const changes: Change[] = [
      // In the state at 1.5 USD/h (what the service charged), kept as it is.
      {
        address: "cws_workload.a",
        actions: ["no-op"],
        before: { ...rental("gpu-rental-medium"), cost_per_hour: 1.5 },
        after: { ...rental("gpu-rental-medium"), cost_per_hour: 1.5 },
      },
      // Replaced: small (1 GPU) by medium (2 GPUs).
      {
        address: "cws_workload.b",
        actions: ["delete", "create"],
        before: { ...rental("gpu-rental-small"), cost_per_hour: 0.8 },
        after: rental("gpu-rental-medium"),
      },
      { address: "cws_workload.gone", actions: ["delete"], before: rental("gpu-rental-medium") },
    ];
    const view = planView(plan(changes), "dev");
    expect(view.resources.map((r) => [r.address, r.recordedCostPerHour])).toEqual([
      ["cws_workload.a", 1.5],
      ["cws_workload.b", undefined],
    ]);
    // 4 GPUs (the limit) and 3.1 USD/h: within both ceilings.
    expect(rules(view)).toEqual([]);
    // One more rental crosses both, and the finding lists what it counted.
    const over = planView(
      plan([
        ...changes,
        { address: "cws_workload.c", actions: ["create"], after: rental("gpu-rental-medium") },
      ]),
      "dev",
    );
    const found = evaluate(over, GUARDRAILS);
    expect(found.map((v) => [v.rule, v.address])).toEqual([
      ["cws-gpus-per-stack", undefined],
      ["cws-cost-per-stack", undefined],
    ]);
    expect(found[0]!.message).toBe(
      "stack dev would hold 6 GPUs, over the 4 allowed: cws_workload.a (2), cws_workload.b (2), cws_workload.c (2)",
    );
    expect(found[1]!.message).toBe(
      "stack dev would cost 4.7 USD/h, over the 4 USD/h allowed: cws_workload.a (1.5 USD/h), cws_workload.b (1.6 USD/h), cws_workload.c (1.6 USD/h)",
    );
  });

  it("find a disallowed or unpriced resource name (fallbacks too), a sandbox without TTL, BM outside its stacks", () => {
    const view = planView(
      plan(
        [
          {
            address: "cws_workload.cpu",
            actions: ["create"],
            after: rental("gpu-rental-small", { fallback_resource_names: ["cpu-rental-small"] }),
          },
          {
            address: "cws_workload.train",
            actions: ["create"],
            after: { type: "BM", resource_name: "bm-h100-8x", region: "us-east-1", project_id: "ml" },
          },
          {
            address: "cws_sandbox.forever",
            type: "cws_sandbox",
            actions: ["create"],
            after: { template: "tpl-user", project_id: "ml" },
          },
          // Unknown until apply: not judged.
          {
            address: "cws_sandbox.later",
            type: "cws_sandbox",
            actions: ["create"],
            after: { template: "tpl-ubuntu-headless" },
            unknown: { ttl_sec: true, project_id: true },
          },
        ],
        // The template's cost as the data source read it.
        [
          {
            mode: "data",
            type: "cws_sandbox_templates",
            values: { templates: [{ uid: "tpl-user", cost_per_hour: 0.5 }] },
          },
        ],
      ),
      "dev",
    );
    expect(view.templateCosts).toEqual(new Map([["tpl-user", 0.5]]));
    expect(rules(view)).toEqual([
      ["cws-resource-table", "mandatory", "cws_workload.cpu"],
      ["cws-allowed-resource-names", "mandatory", "cws_workload.cpu"],
      ["cws-gpus-per-stack", "mandatory", undefined],
      ["cws-cost-per-stack", "mandatory", undefined],
      ["cws-sandbox-ttl", "mandatory", "cws_sandbox.forever"],
      ["cws-bm-stacks", "mandatory", "cws_workload.train"],
    ]);
    expect(rules({ ...view, name: "bm-lab" })).not.toContainEqual([
      "cws-bm-stacks",
      "mandatory",
      "cws_workload.train",
    ]);
  });

  it("warn only for an advisory rule", () => {
    const view = planView(
      plan([
        {
          address: "cws_workload.web",
          actions: ["create"],
          after: { type: "RENTAL", resource_name: "gpu-rental-small" },
        },
      ]),
      "dev",
    );
    expect(evaluate(view, GUARDRAILS)).toEqual([
      {
        rule: "cws-required-project",
        level: "advisory",
        address: "cws_workload.web",
        message: "sets no project (projectId)",
      },
    ]);
  });

  it("refuses a file that is not a plan", () => {
    expect(() => planView({ resources: [] }, "dev")).toThrow(
      /not the JSON of a plan: run `tofu show -json PLANFILE`/,
    );
  });
});

describe("the pack's view of a preview", () => {
  it("reads both Pulumi front ends' resources as the plan's view reads HCL, so the rules find the same", () => {
    expect(
      ["cws:index:Workload", "pulumi-nodejs:dynamic/cws:Sandbox", "aws:s3/bucket:Bucket"].map(kindOf),
    ).toEqual(["Workload", "Sandbox", undefined]);
    const urn = (type: string, name: string) => `urn:pulumi:dev::guard::${type}::${name}`;
    expect(stackOfUrn(urn("cws:index:Workload", "a"))).toBe("dev");
    const fromPulumi: PlannedStack = {
      name: "dev",
      templateCosts: new Map(),
      resources: [
        plannedResource("cws:index:Workload", urn("cws:index:Workload", "bm"), {
          type: "BM",
          resourceName: "bm-h100-8x",
          region: "us-east-1",
          projectId: "ml",
        })!,
        plannedResource("pulumi-nodejs:dynamic/cws:Sandbox", urn("pulumi-nodejs:dynamic/cws:Sandbox", "sb"), {
          template: "tpl-ubuntu-headless",
          ttlSec: 0,
        })!,
      ],
    };
    const fromPlan = planView(
      plan([
        {
          address: "cws_workload.bm",
          actions: ["create"],
          after: { type: "BM", resource_name: "bm-h100-8x", region: "us-east-1", project_id: "ml" },
        },
        {
          address: "cws_sandbox.sb",
          type: "cws_sandbox",
          actions: ["create"],
          after: { template: "tpl-ubuntu-headless", ttl_sec: 0 },
        },
      ]),
      "dev",
    );
    // Addresses differ (URN, HCL address): compared by the resource's name.
    const named = (text: string) => text.replace(/urn:\S+::(\w+)|cws_\w+\.(\w+)/g, "$1$2");
    const findings = (s: PlannedStack) =>
      evaluate(s, GUARDRAILS).map((v) => named(`${v.rule} ${v.address ? `${v.address}: ` : ""}${v.message}`));
    expect(findings(fromPulumi)).toEqual(findings(fromPlan));
    expect(findings(fromPlan)).toEqual([
      "cws-gpus-per-stack stack dev would hold 8 GPUs, over the 4 allowed: bm (8)",
      "cws-cost-per-stack stack dev would cost 32.04 USD/h, over the 4 USD/h allowed: bm (32 USD/h), sb (0.04 USD/h)",
      "cws-sandbox-ttl sb: sets no TTL (ttlSec): it would run until someone deletes it",
      "cws-bm-stacks bm: BM in stack dev, whose name does not match ^bm-",
      "cws-required-project sb: sets no project (projectId)",
    ]);
  });
});
