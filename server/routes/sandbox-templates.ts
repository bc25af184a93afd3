import { SandboxTemplateQuery } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { sandboxTemplateView } from "../views.ts";
import { registerCollectionRoutes } from "./collection.ts";

/**
 * Sandbox templates (spec 4.3): requests to SandboxTemplateService (templates/sandbox-templates.ts).
 * USER templates are made by publish (routes/sandbox-ops.ts).
 */
export function registerSandboxTemplateRoutes(ctx: ServerContext): void {
  registerCollectionRoutes(
    ctx.router,
    "sandbox-templates",
    ctx.services.sandboxTemplates,
    sandboxTemplateView,
    SandboxTemplateQuery,
  );
}
