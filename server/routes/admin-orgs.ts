import type { ServerContext } from "../context.ts";

/** GET /admin/orgs: the orgs of the seed with their credit balance (for tools that walk every org). */
export function registerAdminOrgRoutes(ctx: ServerContext): void {
  const { admin, store } = ctx;
  const svc = ctx.services.admin;
  admin.get(
    "/orgs",
    () => ({
      status: 200,
      body: { items: store.seed.orgs.map((o) => ({ org: o.slug, credits: svc.credits(o.slug) })) },
    }),
    { auth: "admin" },
  );
}
