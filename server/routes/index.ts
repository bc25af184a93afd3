import type { ServerContext } from "../context.ts";
import { registerDashboard } from "../dashboard/route.ts";
import { registerOpenApiRoute } from "../openapi/route.ts";
import { registerAdminRoutes } from "./admin.ts";
import { registerMetaRoutes } from "./meta.ts";
import { registerSandboxRoutes } from "./sandboxes.ts";
import { registerSshKeyRoutes } from "./ssh-keys.ts";
import { registerTemplateRoutes } from "./templates.ts";
import { registerVolumeRoutes } from "./volumes.ts";
import { registerWorkloadRoutes } from "./workloads.ts";

/** A route module: registers routes and hooks on the shared context. */
export type RouteModule = (ctx: ServerContext) => void | Promise<void>;

/** Built-in route modules, registered in this order (add new modules here). */
export const ROUTE_MODULES: readonly RouteModule[] = [
  registerMetaRoutes,
  registerWorkloadRoutes,
  registerSandboxRoutes,
  registerTemplateRoutes,
  registerVolumeRoutes,
  registerSshKeyRoutes,
  registerAdminRoutes,
  registerOpenApiRoute,
  registerDashboard,
];
