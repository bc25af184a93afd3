import { TemplateCreate, TemplateListQuery } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody } from "../http/io.ts";
import { workloadTemplateView } from "../views.ts";
import { registerCollectionRoutes } from "./collection.ts";

/** Workload templates at /templates (spec 4.4): requests to WorkloadTemplateService (templates/workload-templates.ts). */
export function registerTemplateRoutes(ctx: ServerContext): void {
  const { router } = ctx;
  const templates = ctx.services.workloadTemplates;

  router.post("/orgs/:org/templates", async (rc) => {
    const body = await parseBody(rc, TemplateCreate, { reason: "TEMPLATE_INVALID" });
    return { status: 201, body: { uid: templates.create(rc.org, body).uid } };
  });
  registerCollectionRoutes(router, "templates", templates, workloadTemplateView, TemplateListQuery);
}
