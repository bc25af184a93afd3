/**
 * Auto-naming (provider/core/naming.ts): the name a resource gets when the program leaves `name`
 * unset, per front end and per pulumi:autonaming mode, and the rules those names are fitted to.
 */
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import { describe, expect, it } from "vitest";
import { NAME_RULES, PublishBody, VolumeCreate, nameViolation } from "../../api/index.ts";
import { autoNamedOf } from "../../provider/core/definition.ts";
import { chooseName, defaultName, type Autonaming } from "../../provider/core/naming.ts";
import { check as dynamicCheck } from "../../provider/dynamic/adapter.ts";
import { CwsPlugin } from "../../provider/native/adapter.ts";
import { decode, encode } from "../../provider/native/values.ts";
import { resourcesOf } from "../../provider/opentofu/tf-schema.ts";
import { DEFINITIONS, RESOURCES } from "../../provider/registry.ts";
import { buildSchema } from "../../provider/schema/package-schema.ts";

const { Workload, Sandbox, Volume, SandboxTemplate } = RESOURCES as Required<typeof RESOURCES>;
const rental = { type: "RENTAL", image: "nginx:1.27", resourceName: "gpu-rental-small" };
const SUFFIX = /^web-[0-9a-f]{7}$/;
const web: Autonaming = { logicalName: "web" };

describe("the name a resource gets", () => {
  it("is the program's name when it sets one, in every mode", () => {
    for (const engine of [undefined, { mode: "enforce" as const, proposedName: "other" }]) {
      const r = Workload.check({}, { ...rental, name: "api" }, { ...web, engine });
      expect(r.failures).toEqual([]);
      expect(r.inputs.name).toBe("api");
    }
  });

  it("by default is the logical name, a hyphen and seven random hex digits, different each time", () => {
    const a = Workload.check({}, rental, web);
    const b = Workload.check({}, rental, web);
    expect(a.failures).toEqual([]);
    expect(a.inputs.name).toMatch(SUFFIX);
    expect(b.inputs.name).toMatch(SUFFIX);
    expect(a.inputs.name).not.toBe(b.inputs.name);
  });

  it("is chosen once: an update keeps the name the resource has, even one set before", () => {
    const first = Workload.check({}, rental, web).inputs;
    const again = Workload.check(first, { ...rental, image: "nginx:1.28" }, web);
    expect(again.inputs.name).toBe(first.name);
    // State of 0.1.0 (an explicit name), the program no longer setting it: the name stays.
    expect(Workload.check({ ...rental, name: "web" }, rental, web).inputs.name).toBe("web");
    expect(Workload.diff("w-1", { ...first }, again.inputs).detail).toEqual({ image: "redeploy" });
  });

  it("follows the engine's seed: the same seed gives the same name (a plan's preview and update)", () => {
    const seed = new Uint8Array(32).fill(7);
    const a = Workload.check({}, rental, { ...web, seed }).inputs.name;
    expect(Workload.check({}, rental, { ...web, seed }).inputs.name).toBe(a);
    expect(Workload.check({}, rental, { logicalName: "api", seed }).inputs.name).not.toMatch(
      String(a).slice(-7),
    );
  });

  it("is shortened to fit the kind's length, keeping the whole suffix", () => {
    const long = "a-very-long-logical-name-for-a-workload";
    const r = Workload.check({}, rental, { logicalName: long });
    expect(r.failures).toEqual([]);
    const name = String(r.inputs.name);
    expect(name).toHaveLength(NAME_RULES.workload.max);
    expect(name).toMatch(new RegExp(`^${long.slice(0, 24)}-[0-9a-f]{7}$`));
    // A volume takes 64 characters: the same logical name stays whole.
    expect(
      Volume.check({}, { sizeInMb: 128, resourceName: "gpu-rental-small" }, { logicalName: long }).inputs
        .name,
    ).toMatch(new RegExp(`^${long}-[0-9a-f]{7}$`));
  });

  it("is refused at check, with the rule, when its characters break the kind's rule", () => {
    const r = Workload.check({}, rental, { logicalName: "Web_1" });
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]!.property).toBe("name");
    expect(r.failures[0]!.reason).toMatch(
      /the auto-name "Web_1-[0-9a-f]{7}" \(the logical name "Web_1" and a random suffix\) breaks the workload name rule: 1-32 characters of lowercase letters, digits and hyphens; set name/,
    );
    const s = Sandbox.check({}, { template: "tpl-1" }, { logicalName: "-dev" });
    expect(s.failures[0]!.reason).toMatch(/sandbox name rule: .*no leading or trailing hyphen/);
    // A volume's name takes any characters.
    expect(Volume.check({}, { sizeInMb: 1, resourceName: "r" }, { logicalName: "Data_1" }).failures).toEqual(
      [],
    );
  });

  it("under pulumi:autonaming: verbatim and enforced patterns exactly, proposals as given, disabled: required", () => {
    const enforce = (proposedName: string) => ({
      ...web,
      engine: { mode: "enforce" as const, proposedName },
    });
    expect(Workload.check({}, rental, enforce("web")).inputs.name).toBe("web");
    expect(
      Workload.check({}, rental, { ...web, engine: { mode: "propose", proposedName: "pr-7-web" } }).inputs
        .name,
    ).toBe("pr-7-web");
    const tooLong = Workload.check({}, rental, enforce("a-stack-name-that-is-long-enough-web"));
    expect(tooLong.failures[0]!.reason).toMatch(
      /the name "a-stack-name-that-is-long-enough-web" that the stack's pulumi:autonaming gives breaks the workload name rule: 1-32 characters/,
    );
    const off = Workload.check({}, rental, { ...web, engine: { mode: "disable", proposedName: "" } });
    expect(off.failures).toEqual([
      { property: "name", reason: expect.stringMatching(/name is required: .*pulumi:autonaming .*disabled/) },
    ]);
    // A name the resource already has is kept in every mode.
    expect(Workload.check({ ...rental, name: "kept" }, rental, enforce("web")).inputs.name).toBe("kept");
  });

  it("is required where the front end has no auto-naming (OpenTofu), and left to the service on adoption", () => {
    expect(Workload.check({}, rental).failures).toEqual([{ property: "name", reason: "name is required" }]);
    const adopt = Workload.check({}, { ...rental, adoptUid: "w-1" }, web);
    expect(adopt.failures).toEqual([]);
    expect(adopt.inputs.name).toBeUndefined();
  });

  it("of a sandbox template follows the publish rule", () => {
    const r = SandboxTemplate.check({}, { sourceSandbox: "s-1" }, { logicalName: "env.v2" });
    expect(r.failures).toEqual([]);
    expect(r.inputs.name).toMatch(/^env\.v2-[0-9a-f]{7}$/);
  });
});

describe("the name rules", () => {
  it("are the contract's: every auto-name the provider chooses is one the service accepts", () => {
    for (const logicalName of ["web", "x".repeat(80), "a-b-c"]) {
      const naming = { logicalName };
      expect(nameViolation("RENTAL", defaultName(NAME_RULES.workload, naming))).toBeUndefined();
      expect(nameViolation("SANDBOX", defaultName(NAME_RULES.sandbox, naming))).toBeUndefined();
      const publish = PublishBody.safeParse({ name: defaultName(NAME_RULES.sandboxTemplate, naming) });
      expect(publish.success).toBe(true);
      const volume = VolumeCreate.safeParse({
        name: defaultName(NAME_RULES.object, naming),
        size_in_mb: 1,
        resource_name: "r",
      });
      expect(volume.success).toBe(true);
    }
    expect(PublishBody.safeParse({ name: "x".repeat(NAME_RULES.sandboxTemplate.max + 1) }).success).toBe(
      false,
    );
  });

  it("every resource with a name auto-names it; the package schema makes it optional, OpenTofu's required", () => {
    const schema = buildSchema("0.0.0") as { resources: Record<string, { requiredInputs: string[] }> };
    for (const def of Object.values(DEFINITIONS)) {
      expect(autoNamedOf(def).map(([k]) => k)).toEqual(["name"]);
      expect(schema.resources[`cws:index:${def.name}`]!.requiredInputs).not.toContain("name");
    }
    for (const r of resourcesOf(schema as never))
      expect(r.attributes.find((a) => a.name === "name")).toMatchObject({ required: true });
  });

  it("names the property and both origins in the chooser's own words", () => {
    const choice = chooseName("name", NAME_RULES.workload, "workload", {}, {}, undefined);
    expect(choice.failure).toEqual({ property: "name", reason: "name is required" });
  });
});

describe("front ends", () => {
  it("dynamic: the logical name from the URN the class hands over", () => {
    const r = dynamicCheck(
      "Workload",
      {},
      { ...rental, __urn: "urn:pulumi:pr-7::app::pulumi-nodejs:dynamic/cws:Workload::web" },
    );
    expect(r.failures).toEqual([]);
    expect(r.inputs.name).toMatch(SUFFIX);
  });

  it("native: says it supports pulumi:autonaming, and names from the engine's options and seed", () => {
    const plugin = new CwsPlugin({
      version: "9.9.9",
      schema: () => "{}",
      log: { log: async () => {}, close() {} },
    });
    const configured = plugin.configure(new providerPb.ConfigureRequest()) as InstanceType<
      typeof providerPb.ConfigureResponse
    >;
    expect(configured.getSupportsAutonamingConfiguration()).toBe(true);

    const check = (autonaming?: { mode: number; proposed: string }) => {
      const req = new providerPb.CheckRequest();
      req.setUrn("urn:pulumi:pr-7::app::cws:index:Workload::web");
      req.setName("web");
      req.setNews(encode(rental));
      req.setRandomseed(new Uint8Array(32).fill(1));
      if (autonaming) {
        const o = new providerPb.CheckRequest.AutonamingOptions();
        o.setMode(autonaming.mode);
        o.setProposedName(autonaming.proposed);
        req.setAutonaming(o);
      }
      const res = plugin.check(req) as InstanceType<typeof providerPb.CheckResponse>;
      return {
        name: decode(res.getInputs()).props.name,
        failures: res.getFailuresList().map((f) => f.getReason()),
      };
    };
    const Mode = providerPb.CheckRequest.AutonamingOptions.Mode;
    expect(check().name).toMatch(SUFFIX);
    expect(check().name).toBe(check().name); // the engine's seed decides the suffix
    expect(check({ mode: Mode.ENFORCE, proposed: "web" }).name).toBe("web");
    expect(check({ mode: Mode.PROPOSE, proposed: "pr-7-web" }).name).toBe("pr-7-web");
    expect(check({ mode: Mode.DISABLE, proposed: "" }).failures).toEqual([
      expect.stringMatching(/name is required/),
    ]);
  });
});
