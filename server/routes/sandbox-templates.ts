import { SandboxTemplatePatch, SandboxTemplateQuery } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody, parseQuery } from "../http/io.ts";
import { sandboxTemplateView } from "../views.ts";

/**
 * Sandbox templates (spec 4.3): requests to SandboxTemplateService (sandbox/templates.ts).
 * USER templates are made by publish (routes/sandbox-ops.ts).
 */
export function registerSandboxTemplateRoutes(ctx: ServerContext): void {
  const { router } = ctx;
  const templates = ctx.services.sandboxTemplates;

  router.get("/orgs/:org/sandbox-templates", (rc) => {
    const page = templates.list(rc.org, parseQuery(rc, SandboxTemplateQuery));
    return {
      status: 200,
      body: { items: page.items.map(sandboxTemplateView), next_cursor: page.next_cursor },
    };
  });

  router.get("/orgs/:org/sandbox-templates/:uid", (rc) => ({
    status: 200,
    body: sandboxTemplateView(templates.get(rc.org, rc.params.uid!)),
  }));

  router.patch("/orgs/:org/sandbox-templates/:uid", async (rc) => {
    const t = templates.get(rc.org, rc.params.uid!);
    const body = await parseBody(rc, SandboxTemplatePatch, { reason: "SANDBOX_TEMPLATE_INVALID" });
    return { status: 200, body: sandboxTemplateView(templates.update(t, body)) };
  });

  router.delete("/orgs/:org/sandbox-templates/:uid", (rc) => {
    templates.delete(rc.org, rc.params.uid!);
    return { status: 204 };
  });
}
