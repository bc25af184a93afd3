import { SandboxTemplatePatch, SandboxTemplateQuery } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import { paginate, parseBody, parseQuery } from "../http/io.ts";
import type { SandboxTemplateRecord } from "../records.ts";
import { sandboxTemplateView } from "../views.ts";

/**
 * Sandbox templates (spec 4.3): FRESH platform templates (every org, read-only) and the org's
 * own USER templates (made by publish in the sandbox module). Another org's USER template is 404.
 */
export function registerSandboxTemplateRoutes(ctx: ServerContext): void {
  const { router, store, lifecycle: lc } = ctx;
  const get = (org: string, uid: string): SandboxTemplateRecord => {
    const t = store.sandboxTemplates.getIn(org, uid, true);
    if (!t) throw new ApiError("SANDBOX_TEMPLATE_NOT_FOUND", `sandbox template ${uid} not found`);
    return t;
  };
  const user = (t: SandboxTemplateRecord, action: string) => {
    if (t.kind !== "USER")
      throw new ApiError(
        "SANDBOX_TEMPLATE_READ_ONLY",
        `sandbox template ${t.uid} is a FRESH platform template and cannot be ${action}`,
      );
  };

  router.get("/orgs/:org/sandbox-templates", (rc) => {
    const q = parseQuery(rc, SandboxTemplateQuery);
    const page = paginate(
      store.sandboxTemplates.list(rc.org, true),
      q,
      (t) => (!q.kind || t.kind === q.kind) && (!q.status || t.status === q.status),
      undefined,
      (uid) => store.sandboxTemplates.seqOf(uid),
    );
    return {
      status: 200,
      body: { items: page.items.map(sandboxTemplateView), next_cursor: page.next_cursor },
    };
  });

  router.get("/orgs/:org/sandbox-templates/:uid", (rc) => ({
    status: 200,
    body: sandboxTemplateView(get(rc.org, rc.params.uid!)),
  }));

  router.patch("/orgs/:org/sandbox-templates/:uid", async (rc) => {
    const t = get(rc.org, rc.params.uid!);
    const body = await parseBody(rc, SandboxTemplatePatch, { reason: "SANDBOX_TEMPLATE_INVALID" });
    user(t, "modified");
    if (body.display_name !== undefined) t.display_name = body.display_name;
    if (body.description !== undefined) t.description = body.description;
    t.updated_at = lc.now();
    store.sandboxTemplates.put(t);
    return { status: 200, body: sandboxTemplateView(t) };
  });

  router.delete("/orgs/:org/sandbox-templates/:uid", (rc) => {
    const t = get(rc.org, rc.params.uid!);
    user(t, "deleted");
    if (t.status === "PENDING")
      throw new ApiError(
        "SANDBOX_TEMPLATE_PENDING",
        `sandbox template ${t.uid} is still publishing (PENDING) and cannot be deleted yet`,
      );
    store.sandboxTemplates.remove(t.uid);
    return { status: 204 };
  });
}
