import type { ServerContext } from "../context.ts";
import { credits } from "../billing.ts";

/** GET /admin/orgs: the orgs of the seed with their credit balance (for tools that walk every org). */
export function registerAdminOrgRoutes(ctx: ServerContext): void {
  const { admin, store, lifecycle: lc } = ctx;
  admin.get(
    "/orgs",
    () => ({
      status: 200,
      body: { items: store.seed.orgs.map((o) => ({ org: o.slug, credits: credits(lc.store, o.slug) })) },
    }),
    { auth: "admin" },
  );
}
