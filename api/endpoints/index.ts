/** The endpoint table of the service and of the reference server's admin surface, gathered from one file per resource. */
import { ADMIN } from "./admin.ts";
import type { Endpoint } from "./common.ts";
import { META } from "./meta.ts";
import { SANDBOX_TEMPLATES } from "./sandbox-templates.ts";
import { SANDBOXES } from "./sandboxes.ts";
import { SNAPSHOTS } from "./snapshots.ts";
import { SSH_KEYS } from "./ssh-keys.ts";
import { TEMPLATES } from "./templates.ts";
import { VOLUMES } from "./volumes.ts";
import { WORKLOADS } from "./workloads.ts";

export type { Endpoint, EndpointAuth, JsonEndpoint, ResourceEndpoints } from "./common.ts";
export { answerSchema, routeTemplate, PATH_PARAMETERS } from "./common.ts";
export { SERVER_SCHEMAS } from "./answers.ts";
export { ADMIN, SNAPSHOTS, META, SANDBOXES, SANDBOX_TEMPLATES, SSH_KEYS, TEMPLATES, VOLUMES, WORKLOADS };

/**
 * The endpoint table: every endpoint of the service (under /v3) and of the reference server's
 * admin surface (under /admin), by resource. The server registers each handler from its entry
 * (server/http/endpoints.ts), the OpenAPI document is generated from the table and the schemas
 * of api/, the client calls each endpoint through its entry, and test/client/endpoints.test.ts
 * checks that every endpoint of the service has a client method.
 */
export const ENDPOINT_GROUPS = {
  meta: META,
  workloads: WORKLOADS,
  sandboxes: SANDBOXES,
  sandboxTemplates: SANDBOX_TEMPLATES,
  templates: TEMPLATES,
  volumes: VOLUMES,
  sshKeys: SSH_KEYS,
  admin: ADMIN,
  snapshots: SNAPSHOTS,
} as const;

/** Every endpoint, in the order of the document. */
export const ENDPOINTS: readonly Endpoint[] = Object.values(ENDPOINT_GROUPS).flatMap((g) =>
  Object.values(g as Record<string, Endpoint>),
);
