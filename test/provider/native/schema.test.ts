import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFINITIONS, RESOURCES } from "../../../provider/registry.ts";
import { staleFiles } from "../../../scripts/gen.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";

interface Schema {
  name: string;
  resources: Record<string, { inputProperties: Record<string, { secret?: boolean; description?: string }> }>;
  functions: Record<string, unknown>;
  config: { variables: Record<string, { secret?: boolean }> };
}

const schema = JSON.parse(readFileSync(join(REPO_ROOT, "schema.json"), "utf8")) as Schema;

describe("schema.json", () => {
  it("and every other generated file (SDK classes, reference pages) is what `npm run gen` writes", async () => {
    expect(await staleFiles()).toEqual([]);
  });

  it("has a cws:index token for every resource module, with the definition's input names", () => {
    expect(Object.keys(schema.resources).sort()).toEqual(
      Object.keys(RESOURCES)
        .map((n) => `cws:index:${n}`)
        .sort(),
    );
    expect(Object.keys(schema.resources["cws:index:Workload"]!.inputProperties).sort()).toEqual(
      Object.keys(DEFINITIONS.Workload!.inputs).sort(),
    );
  });

  it("marks the API token and passwords secret and describes inputs from the definitions", () => {
    expect(schema.config.variables.apiToken!.secret).toBe(true);
    const wl = schema.resources["cws:index:Workload"]!.inputProperties;
    expect(wl.registryAuth!.secret).toBe(true);
    expect(wl.vmConfig!.secret).toBe(true);
    expect(wl.image!.description).toMatch(/redeploys/);
    expect(wl.resourceName!.description).toMatch(/In Python it is `resource_name_`/);
    expect(schema.resources["cws:index:WorkloadTemplate"]!.inputProperties.manifest!.secret).toBe(true);
    expect(Object.keys(schema.functions)).toEqual(
      expect.arrayContaining([
        "cws:index:getSandboxTemplates",
        "cws:index:getRegions",
        "cws:index:getVmImages",
      ]),
    );
  });
});
