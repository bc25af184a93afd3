import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

/**
 * `npm run test:next`: the HCL suites under the next OpenTofu and Terraform (betas), which the
 * default run (vitest.config.ts) never runs, so that a beta cannot break it. CWS_HCL_NEXT makes
 * the suites' OPENTOFU and TERRAFORM (test/helpers/tofu.ts) the next releases. Suites that also
 * start Pulumi are left out: the shared scenario list's HCL drivers run in next-versions.next.ts;
 * the rate-limit and adoption suites' HCL cases do not run under the betas.
 */
export const NEXT_SUITES = [
  "test/**/*.next.ts",
  "test/e2e/opentofu/*.test.ts",
  "test/e2e/failures/opentofu-failures.test.ts",
  "test/e2e/guardrails/hcl-check.test.ts",
  "test/e2e/examples/terraform-test.test.ts",
  "test/e2e/teams/opentofu-shared-state.test.ts",
];

export default defineConfig({
  ...base,
  test: { ...base.test, include: NEXT_SUITES, env: { ...base.test?.env, CWS_HCL_NEXT: "1" } },
});
