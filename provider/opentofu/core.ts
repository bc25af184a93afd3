/**
 * Everything the OpenTofu front end takes from the provider core, in one place: the resource
 * modules and their contract, state versions, lookups, configuration and the client. The rest
 * of provider/opentofu/ is protocol only and imports the core through this file.
 */
export { CwsClient } from "../../client/index.ts";
export { CONFIG_ENV, type ProviderConfig } from "../core/config.ts";
export { FUNCTIONS, checkFunctionArgs, type FunctionDef } from "../resources/functions/controller.ts";
export { servedSchema } from "../schema/package-schema.ts";
export { RESOURCES, resourceModule } from "../registry.ts";
export {
  PartialStateError,
  type CheckFailure,
  type Context,
  type DiffResult,
  type Props,
  type ResourceModule,
} from "../core/types.ts";
export { Operations } from "../core/operations.ts";
export { STATE_VERSION, STATE_VERSION_KEY, fromState } from "../core/state.ts";
export { UNKNOWN } from "../core/unknowns.ts";
export { camelToSnake, snakeToCamel } from "../core/wire.ts";
// Timeouts are read as the SDK classes read customTimeouts (Go duration syntax).
export { durationMs } from "../../sdk/duration.ts";
