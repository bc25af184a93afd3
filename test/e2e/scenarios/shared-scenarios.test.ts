/**
 * The shared scenario list (scenarios.ts) through every front end: the dynamic provider, the
 * native plugin, and the OpenTofu provider under both OpenTofu and Terraform plan each step alike
 * (create, nothing, update, redeploy, replace, delete; a redeploy is said on the resource's line
 * by all of them), apply it, plan nothing afterwards, and leave the org empty after destroy.
 * The list ends with what a run does when capacity runs out: fallbacks, a wait and a restock,
 * changes of the candidate lists, and a credits refusal that never falls back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestServer, type TestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";
import { HCL_TOOLS } from "../../helpers/tofu.ts";
import { pulumiDriver, tofuDriver } from "./drivers.ts";
import { SCENARIOS, type Driver } from "./scenarios.ts";
import { runStep } from "./steps.ts";

const STEP_MS = 300_000;

const DRIVERS = [
  ...FRONT_ENDS.map((fe) => ({
    name: fe.name,
    make: (server: TestServer) => pulumiDriver(server, fe, `shared-${fe.name}`),
  })),
  ...HCL_TOOLS.map((tool) => ({ name: tool.name, make: (server: TestServer) => tofuDriver(server, tool) })),
];

describe.each(DRIVERS)("shared scenarios ($name front end)", (fe) => {
  const server = useTestServer();
  let driver: Driver;
  beforeAll(async () => {
    driver = await fe.make(server);
  }, STEP_MS);
  afterAll(async () => {
    await driver?.cleanup();
  });

  for (const step of SCENARIOS) {
    it(step.what, () => runStep(driver, server, step), STEP_MS);
  }

  it(
    "destroys everything, leaving the org empty",
    async () => {
      await driver.destroy();
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    },
    STEP_MS,
  );
});
