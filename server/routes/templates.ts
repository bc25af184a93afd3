import { TemplateCreate, TemplateListQuery, TemplatePatch } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody, parseQuery } from "../http/io.ts";
import { workloadTemplateView } from "../views.ts";

/** Workload templates at /templates (spec 4.4): requests to WorkloadTemplateService (workload-templates.ts). */
export function registerTemplateRoutes(ctx: ServerContext): void {
  const { router } = ctx;
  const templates = ctx.services.workloadTemplates;

  router.post("/orgs/:org/templates", async (rc) => {
    const body = await parseBody(rc, TemplateCreate, { reason: "TEMPLATE_INVALID" });
    return { status: 201, body: { uid: templates.create(rc.org, body).uid } };
  });

  router.get("/orgs/:org/templates", (rc) => {
    const page = templates.list(rc.org, parseQuery(rc, TemplateListQuery));
    return {
      status: 200,
      body: { items: page.items.map(workloadTemplateView), next_cursor: page.next_cursor },
    };
  });

  router.get("/orgs/:org/templates/:uid", (rc) => ({
    status: 200,
    body: workloadTemplateView(templates.get(rc.org, rc.params.uid!)),
  }));

  router.patch("/orgs/:org/templates/:uid", async (rc) => {
    const t = templates.owned(rc.org, rc.params.uid!);
    const body = await parseBody(rc, TemplatePatch, { reason: "TEMPLATE_INVALID" });
    return { status: 200, body: workloadTemplateView(templates.update(t, body)) };
  });

  router.delete("/orgs/:org/templates/:uid", (rc) => {
    templates.delete(rc.org, rc.params.uid!);
    return { status: 204 };
  });
}
