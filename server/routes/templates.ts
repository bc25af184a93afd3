import {
  TemplateCreate,
  TemplateListQuery,
  TemplatePatch,
  validateWorkloadCreate,
  type WorkloadType,
} from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import { paginate, parseBody, parseQuery } from "../http/io.ts";
import type { TemplateRecord } from "../records.ts";
import { newUid } from "../util.ts";
import { templateView } from "../views.ts";

/** A manifest must be a valid workload create body whose type equals the template's type. */
export function checkManifest(type: WorkloadType, manifest: Record<string, unknown>): void {
  if (manifest.type !== type) {
    const got = manifest.type === undefined ? "missing" : JSON.stringify(manifest.type);
    throw new ApiError("TEMPLATE_MANIFEST_INVALID", `manifest.type must equal type (${type}); got ${got}`);
  }
  const result = validateWorkloadCreate(manifest);
  if (!result.ok) {
    const msgs = result.violations.map((v) => {
      const m = v.message.startsWith(v.field) ? v.message : `${v.field}: ${v.message}`;
      return `manifest.${m}`;
    });
    throw new ApiError("TEMPLATE_MANIFEST_INVALID", msgs.join("; "));
  }
}

/**
 * Reusable workload templates (spec 4.4). PUBLIC templates are visible to every org; only the
 * owning org may change or delete a template (platform ones: 403 TEMPLATE_READ_ONLY).
 */
export function registerTemplateRoutes(ctx: ServerContext): void {
  const { router, store, lifecycle: lc } = ctx;
  const visible = (org: string) =>
    store.templates.list(org, true).filter((t) => t.org === org || t.visibility === "PUBLIC");
  const get = (org: string, uid: string): TemplateRecord => {
    const t = store.templates.get(uid);
    if (!t || !(t.org === org || t.visibility === "PUBLIC"))
      throw new ApiError("TEMPLATE_NOT_FOUND", `template ${uid} not found`);
    return t;
  };
  const owned = (org: string, uid: string): TemplateRecord => {
    const t = get(org, uid);
    if (t.org !== org)
      throw new ApiError(
        "TEMPLATE_READ_ONLY",
        `template ${uid} is a public template of another owner and cannot be changed`,
      );
    return t;
  };

  router.post("/orgs/:org/templates", async (rc) => {
    const body = await parseBody(rc, TemplateCreate, { reason: "TEMPLATE_INVALID" });
    checkManifest(body.type, body.manifest);
    const now = lc.now();
    const t: TemplateRecord = {
      uid: newUid("wtpl"),
      org: rc.org,
      name: body.name,
      description: body.description ?? "",
      type: body.type,
      manifest: body.manifest,
      visibility: body.visibility ?? "PRIVATE",
      created_at: now,
      updated_at: now,
    };
    store.templates.put(t);
    return { status: 201, body: { uid: t.uid } };
  });

  router.get("/orgs/:org/templates", (rc) => {
    const q = parseQuery(rc, TemplateListQuery);
    const page = paginate(
      visible(rc.org),
      q,
      (t) => (!q.type || t.type === q.type) && (!q.visibility || t.visibility === q.visibility),
      undefined,
      (uid) => store.templates.seqOf(uid),
    );
    return {
      status: 200,
      body: { items: page.items.map((t) => templateView(t)), next_cursor: page.next_cursor },
    };
  });

  router.get("/orgs/:org/templates/:uid", (rc) => ({
    status: 200,
    body: templateView(get(rc.org, rc.params.uid!)),
  }));

  router.patch("/orgs/:org/templates/:uid", async (rc) => {
    const t = owned(rc.org, rc.params.uid!);
    const body = await parseBody(rc, TemplatePatch, { reason: "TEMPLATE_INVALID" });
    if (body.manifest !== undefined) checkManifest(t.type, body.manifest);
    if (body.name !== undefined) t.name = body.name;
    if (body.description !== undefined) t.description = body.description;
    if (body.manifest !== undefined) t.manifest = body.manifest;
    t.updated_at = lc.now();
    store.templates.put(t);
    return { status: 200, body: templateView(t) };
  });

  router.delete("/orgs/:org/templates/:uid", (rc) => {
    const t = owned(rc.org, rc.params.uid!);
    store.templates.remove(t.uid);
    return { status: 204 };
  });
}
