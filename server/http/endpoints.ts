import type { z } from "zod";
import type { Endpoint } from "../../api/endpoints/index.ts";
import { ApiError, zodError } from "./errors.ts";
import type { Handler, Reply, RequestContext, Router } from "./router.ts";
import type { NEXT } from "./router.ts";

type Infer<S> = S extends z.ZodType ? z.infer<S> : never;

/** What a handler of an endpoint gets: the request, and its body and query parsed by the endpoint's schemas. */
export interface EndpointContext<E extends Endpoint> extends Omit<RequestContext, "body" | "parsedQuery"> {
  /**
   * The JSON body checked against the endpoint's `body` schema (400 with its `bodyReason`);
   * a missing body is `{}` when the endpoint says `bodyOptional`. Read when the handler asks,
   * so a 404 of the path comes before a complaint about the body.
   */
  body(): Promise<Infer<E["body"]>>;
  /** The query checked against the endpoint's `query` schema (400 INVALID_QUERY). */
  parsedQuery(): Infer<E["query"]>;
}

export type EndpointHandler<E extends Endpoint> = (
  rc: EndpointContext<E>,
) => Promise<Reply | typeof NEXT | undefined> | Reply | typeof NEXT | undefined;

/** The routers endpoints are registered on: /v3 and /admin. */
export interface Routers {
  router: Router;
  admin: Router;
}

/**
 * Registers the handler of an endpoint of the table (api/endpoints/) on the router of its
 * prefix, with the endpoint's method, path and authentication: a route is never spelled twice.
 * `first` puts it before the handlers registered earlier (a module taking over part of an
 * endpoint, answering NEXT for the rest).
 */
export function serve<E extends Endpoint>(
  routers: Routers,
  endpoint: E,
  handler: EndpointHandler<E>,
  opts: { first?: boolean } = {},
): void {
  const router = endpoint.prefix === "/admin" ? routers.admin : routers.router;
  // The request context reads body() and parsedQuery() through the endpoint of the answering route.
  router.add(endpoint.method, endpoint.pattern, handler as Handler, {
    auth: endpoint.auth,
    first: opts.first,
    endpoint,
  });
}

/** The body of a request checked against its endpoint's schema (RequestContext.body). */
export async function endpointBody(rc: RequestContext, endpoint: Endpoint | undefined): Promise<unknown> {
  const schema = endpoint?.body;
  if (!endpoint || !schema) throw new Error(`${rc.method} ${rc.path}: the route declares no body`);
  const reason = endpoint.bodyReason ?? "INVALID_BODY";
  let raw = await rc.json();
  if (raw === undefined) {
    if (!endpoint.bodyOptional) throw new ApiError(reason, "request body is required (JSON object)");
    raw = {};
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw zodError(parsed.error, reason);
  return parsed.data;
}

/** The query of a request checked against its endpoint's schema (RequestContext.parsedQuery). */
export function endpointQuery(rc: RequestContext, endpoint: Endpoint | undefined): unknown {
  const schema = endpoint?.query;
  if (!schema) throw new Error(`${rc.method} ${rc.path}: the route declares no query`);
  const obj: Record<string, string> = {};
  for (const [k, v] of rc.query) obj[k] = v;
  const parsed = schema.safeParse(obj);
  if (!parsed.success) throw zodError(parsed.error, "INVALID_QUERY");
  return parsed.data;
}
