/**
 * The shared scenario list (scenarios.ts) through every front end: the dynamic provider, the
 * native plugin, and the OpenTofu provider under both OpenTofu and Terraform plan each step alike
 * (create, nothing, update, redeploy, replace, delete; a redeploy is said on the resource's line
 * by all of them), apply it, plan nothing afterwards, and leave the org empty after destroy.
 * The list ends with what a run does when capacity runs out: fallbacks, a wait and a restock,
 * changes of the candidate lists, and a credits refusal that never falls back.
 */
import { FRONT_ENDS } from "../../helpers/front-ends.ts";
import { HCL_TOOLS } from "../../helpers/tofu.ts";
import { pulumiDriver, tofuDriver } from "./drivers.ts";
import { describeScenarios, type ScenarioDriver } from "./suite.ts";

describeScenarios([
  ...FRONT_ENDS.map((fe): ScenarioDriver => ({
    name: `${fe.name} front end`,
    make: (server) => pulumiDriver(server, fe, `shared-${fe.name}`),
  })),
  ...HCL_TOOLS.map((tool): ScenarioDriver => ({
    name: `${tool.name} front end`,
    make: (server) => tofuDriver(server, tool),
  })),
]);
