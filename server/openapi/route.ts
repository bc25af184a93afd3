import type { IncomingMessage } from "node:http";
import { META } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { openApiDocument } from "./document.ts";

/** The origin a request reached the server at (`X-Forwarded-Proto` honoured behind a proxy). */
export function requestOrigin(ctx: ServerContext, req: IncomingMessage): string {
  const proto = req.headers["x-forwarded-proto"] === "https" ? "https" : "http";
  const host = req.headers.host;
  if (host && /^[A-Za-z0-9.:[\]-]+$/.test(host)) return `${proto}://${host}`;
  const h = ctx.options.host.includes(":") ? `[${ctx.options.host}]` : ctx.options.host;
  return `${proto}://${h}:${req.socket.localPort ?? ctx.options.port}`;
}

/** GET /v3/openapi.json: the OpenAPI 3.1 document (no authentication). */
export function registerOpenApiRoute(ctx: ServerContext): void {
  serve(ctx, META.openapi, (rc) => ({ status: 200, body: openApiDocument(requestOrigin(ctx, rc.req)) }));
}
