import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Version } from "../../api/index.ts";
import { META } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";

const PACKAGE_JSON = fileURLToPath(new URL("../../package.json", import.meta.url));

export function versionInfo(): Version {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string };
  return {
    name: "cws-reference",
    version: pkg.version,
    gitHash: process.env.CWS_GIT_HASH || "unknown",
    buildDate: process.env.CWS_BUILD_DATE || statSync(PACKAGE_JSON).mtime.toISOString(),
  };
}

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
