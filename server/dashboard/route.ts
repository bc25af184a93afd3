import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import type { ServerContext } from "../context.ts";
import { ApiError, notFound } from "../http/errors.ts";
import type { RequestContext } from "../http/router.ts";
import { bearer } from "../http/server.ts";
import { streamLogs } from "../workloads/routes.ts";
import { orgOverview, workloadEvents } from "./data.ts";

const PUBLIC = new URL("./public/", import.meta.url);
const FILES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "style.css": "text/css; charset=utf-8",
};
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** Who is looking: the admin (every org) or one org's token (that org only). */
interface Viewer {
  role: "admin" | "org";
  orgs: string[];
}

function viewer(ctx: ServerContext, rc: RequestContext): Viewer {
  const token = bearer(rc.req);
  if (!token) throw new ApiError("UNAUTHORIZED", "the dashboard needs the admin token or an org's API token");
  if (token === ctx.options.adminToken)
    return { role: "admin", orgs: ctx.store.seed.orgs.map((o) => o.slug) };
  const org = ctx.orgOfToken(token);
  if (!org) throw new ApiError("UNAUTHORIZED", "invalid token");
  return { role: "org", orgs: [org] };
}

function orgFor(ctx: ServerContext, rc: RequestContext): string {
  const v = viewer(ctx, rc);
  const org = rc.params.org!;
  if (!v.orgs.includes(org))
    throw new ApiError("FORBIDDEN", `the token is not valid for organization ${org}`);
  return org;
}

function sendFile(res: ServerResponse, method: string, name: string): undefined {
  const data = readFileSync(new URL(name, PUBLIC));
  res.writeHead(200, { "content-type": FILES[name]!, "content-length": data.length, ...PAGE_HEADERS });
  res.end(method === "HEAD" ? undefined : data);
  return undefined;
}

/**
 * The dashboard: a read-only page at `/` (static files in ./public) and the JSON it polls under
 * `/dashboard/api`. Every JSON route needs a bearer token: the admin token (all orgs) or an
 * org's API token (that org); the page itself holds no data.
 */
export function registerDashboard(ctx: ServerContext): void {
  const { site } = ctx;
  const open = { auth: "none" as const };
  site.get("/", (rc) => sendFile(rc.res, rc.method, "index.html"), open);
  site.get(
    "/dashboard/:file",
    (rc) => {
      const name = rc.params.file!;
      if (!Object.hasOwn(FILES, name)) throw new ApiError("ROUTE_NOT_FOUND", `no dashboard file ${name}`);
      return sendFile(rc.res, rc.method, name);
    },
    open,
  );

  site.get("/dashboard/api/session", (rc) => ({ status: 200, body: viewer(ctx, rc) }), open);
  site.get(
    "/dashboard/api/orgs/:org",
    (rc) => ({ status: 200, body: orgOverview(ctx, orgFor(ctx, rc)) }),
    open,
  );
  site.get(
    "/dashboard/api/orgs/:org/workloads/:uid/events",
    (rc) => {
      const events = workloadEvents(ctx, orgFor(ctx, rc), rc.params.uid!);
      if (!events) throw notFound("WORKLOAD_NOT_FOUND", "workload", rc.params.uid);
      return { status: 200, body: events };
    },
    open,
  );
  site.get(
    "/dashboard/api/orgs/:org/workloads/:uid/logs",
    (rc) => {
      const w = ctx.services.workloads.get(orgFor(ctx, rc), rc.params.uid!);
      streamLogs(ctx, rc.res, rc.req, w, { tail: 200 });
      return undefined;
    },
    open,
  );
}
