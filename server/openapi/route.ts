import type { IncomingMessage } from "node:http";
import { META } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { openApiDocument } from "./document.ts";
import { serverData, withServerExamples } from "./examples.ts";

/** The origin a request reached the server at (`X-Forwarded-Proto` honoured behind a proxy). */
export function requestOrigin(ctx: ServerContext, req: IncomingMessage): string {
  const proto = req.headers["x-forwarded-proto"] === "https" ? "https" : "http";
  const host = req.headers.host;
  if (host && /^[A-Za-z0-9.:[\]-]+$/.test(host)) return `${proto}://${host}`;
  const h = ctx.options.host.includes(":") ? `[${ctx.options.host}]` : ctx.options.host;
  return `${proto}://${h}:${req.socket.localPort ?? ctx.options.port}`;
}

/**
 * GET /v3/openapi.json: the OpenAPI 3.1 document (no authentication), with the running server's
 * data as its examples (examples.ts). The document is made again only when that data changed.
 */
export function registerOpenApiRoute(ctx: ServerContext): void {
  let made: { key: string; doc: ReturnType<typeof openApiDocument> } | undefined;
  serve(ctx, META.openapi, (rc) => {
    const data = serverData(ctx.store);
    const key = JSON.stringify(data);
    if (made?.key !== key) made = { key, doc: withServerExamples(openApiDocument(), data) };
    return {
      status: 200,
      body: { ...made.doc, servers: openApiDocument(requestOrigin(ctx, rc.req)).servers },
    };
  });
}
