/**
 * The package's provider entry points keep their names when files move: recorded state loads
 * `pulumi-cws/provider/dynamic`, and programs call the lookups from `pulumi-cws/provider/functions`.
 */
import { describe, expect, it } from "vitest";

describe("pulumi-cws/provider entry points", () => {
  it("provider/functions gives the lookups over a client", async () => {
    const m = await import("pulumi-cws/provider/functions");
    expect(Object.keys(m)).toEqual(
      expect.arrayContaining(["getRegions", "getSandboxTemplates", "getVolumes", "lookup", "FUNCTIONS"]),
    );
  });

  it("provider/dynamic gives the provider of a type; provider/registry every resource module", async () => {
    const { provider } = await import("pulumi-cws/provider/dynamic");
    expect(typeof provider("Volume").diff).toBe("function");
    const { RESOURCES } = await import("pulumi-cws/provider/registry");
    expect(Object.keys(RESOURCES).sort()).toEqual([
      "Sandbox",
      "SandboxTemplate",
      "SshKey",
      "Volume",
      "Workload",
      "WorkloadTemplate",
    ]);
  });
});
