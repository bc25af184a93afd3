/**
 * `npm run test:next`: the shared scenario list (scenarios.ts) under the next OpenTofu and
 * Terraform (NEXT_HCL_TOOLS, betas), as shared-scenarios.test.ts runs it under the tested
 * releases, after a check that each binary is that release and that docs/opentofu.md's version
 * table names it, where what differs is written down. Not part of `npm test`
 * (vitest.next.config.ts), so that a beta cannot break it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { runProcess } from "../../../scripts/run.ts";
import { markdownTable } from "../../helpers/markdown.ts";
import { NEXT_HCL_TOOLS, requireTool, toolTitle } from "../../helpers/tofu.ts";
import { tofuDriver } from "./drivers.ts";
import { describeScenarios } from "./suite.ts";

describe.each(NEXT_HCL_TOOLS)("$product $version", (tool) => {
  it("is the release built, and docs/opentofu.md's version table names it", async () => {
    requireTool(tool);
    const { stdout } = await runProcess(tool.path, ["version"], {
      env: { ...process.env, CHECKPOINT_DISABLE: "1" },
    });
    expect(stdout).toMatch(new RegExp(`^${tool.product} v${tool.version.replace(/\./g, "\\.")}$`, "m"));
    const doc = readFileSync(join(REPO_ROOT, "docs", "opentofu.md"), "utf8");
    const row = markdownTable(doc, "Tool").find((r) => r.Tool === tool.product);
    expect(row?.["Next release"]).toMatch(new RegExp(`^${tool.version.replace(/\./g, "\\.")}\\b`));
  });
});

describeScenarios(
  NEXT_HCL_TOOLS.map((tool) => ({ name: toolTitle(tool), make: (server) => tofuDriver(server, tool) })),
);
