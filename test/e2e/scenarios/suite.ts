/**
 * The shared scenario list (scenarios.ts) as a suite per driver: each step planned, applied and
 * planned again (runStep), then a destroy that leaves the org empty. shared-scenarios.test.ts runs
 * it through every front end; next-versions.next.ts through the next OpenTofu and Terraform.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestServer, type TestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, liveResources } from "../../helpers/stacks.ts";
import { SCENARIOS, type Driver } from "./scenarios.ts";
import { runStep } from "./steps.ts";

const STEP_MS = 300_000;

/** A suite's driver: what its title names, and how it is made against the suite's server. */
export interface ScenarioDriver {
  name: string;
  make: (server: TestServer) => Promise<Driver>;
}

/** One suite per driver, titled `shared scenarios (<name>)`, each with its own server. */
export function describeScenarios(drivers: readonly ScenarioDriver[]): void {
  describe.each(drivers)("shared scenarios ($name)", (fe) => {
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
}
