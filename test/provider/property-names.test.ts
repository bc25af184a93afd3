/**
 * api/property-names.ts names the inputs and outputs of every resource for code that loads no
 * provider (the SDK classes); the resource definitions (provider/resources/<kind>/) are held to it.
 */
import { describe, expect, it } from "vitest";
import { RESOURCE_INPUTS, RESOURCE_OUTPUTS, RESOURCE_SECRETS } from "../../api/index.ts";
import { secretsOf } from "../../provider/core/definition.ts";
import { DEFINITIONS as RESOURCE_PROPERTIES, RESOURCES } from "../../provider/registry.ts";

describe("RESOURCE_OUTPUTS", () => {
  it("has the outputs of every resource module", () => {
    expect(Object.keys(RESOURCE_OUTPUTS).sort()).toEqual(Object.keys(RESOURCES).sort());
  });

  it("are the outputs of the plugin's schema", () => {
    for (const [name, outputs] of Object.entries(RESOURCE_OUTPUTS)) {
      expect(Object.keys(RESOURCE_PROPERTIES[name]!.outputs).sort(), name).toEqual([...outputs].sort());
    }
  });
});

describe("RESOURCE_INPUTS and RESOURCE_SECRETS", () => {
  it("are the inputs and secrets of the plugin's schema", () => {
    expect(Object.keys(RESOURCE_INPUTS).sort()).toEqual(Object.keys(RESOURCE_PROPERTIES).sort());
    for (const [name, inputs] of Object.entries(RESOURCE_INPUTS)) {
      // Names, not their order (the schema lists them in its own order).
      expect(Object.keys(RESOURCE_PROPERTIES[name]!.inputs).sort(), name).toEqual([...inputs].sort());
      expect(secretsOf(RESOURCE_PROPERTIES[name]!), name).toEqual([
        ...RESOURCE_SECRETS[name as keyof typeof RESOURCE_SECRETS],
      ]);
    }
  });
});
