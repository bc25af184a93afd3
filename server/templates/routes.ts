import { SANDBOX_TEMPLATES, TEMPLATES } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { sandboxTemplateView, workloadTemplateView } from "./views.ts";
import { serveResource } from "../common/resource-routes.ts";

/**
 * Workload templates at /templates (spec 4.4, templates/workload-templates.ts) and sandbox
 * templates (spec 4.3, templates/sandbox-templates.ts; USER ones are made by publish).
 */
export function registerTemplateRoutes(ctx: ServerContext): void {
  const templates = ctx.services.workloadTemplates;
  serve(ctx, TEMPLATES.create, async (rc) => ({
    status: 201,
    body: { uid: templates.create(rc.org, await rc.body()).uid },
  }));
  serveResource(ctx, TEMPLATES, templates, workloadTemplateView);
  serveResource(ctx, SANDBOX_TEMPLATES, ctx.services.sandboxTemplates, sandboxTemplateView);
}
