import { META } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { versionInfo } from "./version.ts";

/** Health, readiness, version (no auth; also served at the root) and the region list. */
export function registerMetaRoutes(ctx: ServerContext): void {
  const version = versionInfo();
  let closing = false;
  ctx.onClose(() => {
    closing = true;
  });
  serve(ctx, META.health, () => ({ status: 200, body: { status: "ok" } }));
  serve(ctx, META.ready, () =>
    closing ? { status: 503, body: { status: "closing" } } : { status: 200, body: { status: "ready" } },
  );
  serve(ctx, META.version, () => ({ status: 200, body: version }));
  serve(ctx, META.regions, () => ({ status: 200, body: ctx.store.seed.regions }));
}
