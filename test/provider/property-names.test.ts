/**
 * api/property-names.ts names the outputs of every resource once: the SDK declares them, the
 * modules read them (provider/wire.ts) and the plugin's schema types them. This holds the
 * schema's table to the same names.
 */
import { describe, expect, it } from "vitest";
import { RESOURCE_INPUTS, RESOURCE_OUTPUTS, RESOURCE_SECRETS } from "../../api/index.ts";
import { RESOURCE_PROPERTIES } from "../../provider/native/properties.ts";
import { RESOURCES } from "../../provider/registry.ts";

describe("RESOURCE_OUTPUTS", () => {
  it("has the outputs of every resource module", () => {
    expect(Object.keys(RESOURCE_OUTPUTS).sort()).toEqual(Object.keys(RESOURCES).sort());
  });

  it("are the outputs of the plugin's schema", () => {
    for (const [name, outputs] of Object.entries(RESOURCE_OUTPUTS)) {
      expect(Object.keys(RESOURCE_PROPERTIES[name]!.outputs), name).toEqual([...outputs]);
    }
  });
});

describe("RESOURCE_INPUTS and RESOURCE_SECRETS", () => {
  it("are the inputs and secrets of the plugin's schema", () => {
    expect(Object.keys(RESOURCE_INPUTS).sort()).toEqual(Object.keys(RESOURCE_PROPERTIES).sort());
    for (const [name, inputs] of Object.entries(RESOURCE_INPUTS)) {
      // Names, not their order (the schema lists them in its own order).
      expect(Object.keys(RESOURCE_PROPERTIES[name]!.inputs).sort(), name).toEqual([...inputs].sort());
      expect(RESOURCE_PROPERTIES[name]!.secrets, name).toEqual([
        ...RESOURCE_SECRETS[name as keyof typeof RESOURCE_SECRETS],
      ]);
    }
  });
});
