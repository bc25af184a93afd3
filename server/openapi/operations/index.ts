import { ADMIN_OPERATIONS } from "./admin.ts";
import { COLLECTION_OPERATIONS } from "./collections.ts";
import type { Operation } from "./common.ts";
import { META_OPERATIONS } from "./meta.ts";
import { SANDBOX_OPERATIONS } from "./sandboxes.ts";
import { WORKLOAD_OPERATIONS } from "./workloads.ts";

export type { Operation } from "./common.ts";
export { SERVER_SCHEMAS } from "./admin.ts";

/**
 * Every operation of the service and of the admin surface: the route (as the router spells
 * it), who may call it, and which contract schemas describe its query, body and answers. The
 * OpenAPI document is generated from this table and the schemas in api/; a test holds the table
 * and the routes the server registers together.
 */
export const OPERATIONS: readonly Operation[] = [
  ...META_OPERATIONS,
  ...WORKLOAD_OPERATIONS,
  ...SANDBOX_OPERATIONS,
  ...COLLECTION_OPERATIONS,
  ...ADMIN_OPERATIONS,
];
