import type { ServerContext } from "./context.ts";
import { registerDashboard } from "./dashboard/route.ts";
import { registerOpenApiRoute } from "./openapi/route.ts";
import { registerAdminRoutes } from "./admin/routes.ts";
import { registerMetaRoutes } from "./meta/routes.ts";
import { registerSandboxRoutes } from "./sandbox/routes/index.ts";
import { registerSshKeyRoutes } from "./ssh-keys/routes.ts";
import { registerTemplateRoutes } from "./templates/routes.ts";
import { registerVolumeRoutes } from "./volumes/routes.ts";
import { registerWorkloadRoutes } from "./workloads/routes.ts";

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
