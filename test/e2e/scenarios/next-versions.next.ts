/**
 * `npm run test:next`: the shared scenario list (scenarios.ts) under the next OpenTofu and
 * Terraform (NEXT_HCL_TOOLS, betas), as shared-scenarios.test.ts runs it under the tested
 * releases. Not part of `npm test` (vitest.next.config.ts), so that a beta cannot break it; what
 * differs is recorded in docs/opentofu.md's version table.
 */
import { NEXT_HCL_TOOLS, toolTitle } from "../../helpers/tofu.ts";
import { tofuDriver } from "./drivers.ts";
import { describeScenarios, type ScenarioDriver } from "./suite.ts";

describeScenarios(
  NEXT_HCL_TOOLS.map((tool): ScenarioDriver => ({
    name: toolTitle(tool),
    make: (server) => tofuDriver(server, tool),
  })),
);
