import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Fault } from "../../api/index.ts";
import type { Endpoint } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "./errors.ts";
import type { RequestBodies } from "./bodies.ts";
import { afterCommit, unsavedError, writeDirectly } from "./durable.ts";
import { endpointBody, endpointQuery } from "./endpoints.ts";
import { readJsonBody } from "./io.ts";
import { ADMIN_PREFIX, API_PREFIX, parseRequestTarget } from "./path.ts";
import { NEXT, type Match, type Reply, type RequestContext, type Router, type RouteAuth } from "./router.ts";

export { ADMIN_PREFIX, API_PREFIX } from "./path.ts";
export {
  checkWebSocketHandshake,
  createUpgradeListener,
  onClientError,
  writeSocketError,
} from "./upgrade.ts";

const ROOT_ALIASES = new Set(["/healthz", "/readyz", "/version"]);

export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  // A string body goes out in one write with the headers (a Buffer would be a second chunk).
  const data = JSON.stringify(body);
  const head: Record<string, string | number> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(data, "utf8"),
  };
  if (headers) Object.assign(head, headers);
  res.writeHead(status, head);
  res.end(data, "utf8");
}

export function sendError(res: ServerResponse, e: ApiError): void {
  sendJson(res, e.status, { error: e.message, reason: e.reason }, e.headers);
}

/**
 * The node:http request listener: logging, faults, auth and the org's rate limit, routing,
 * errors. Faults come first: a request a fault fails or cuts before it is carried out never
 * reaches authentication, so it costs no token; a delayed one is charged when it runs. `bodies`
 * keeps each request's body from stalling its connection (http/bodies.ts).
 */
export function createRequestListener(ctx: ServerContext, bodies?: RequestBodies) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    bodies?.track(req, res);
    const method = (req.method ?? "GET").toUpperCase();
    let pathname = "/";
    let search = "";
    let bad: ApiError | undefined;
    try {
      ({ pathname, search } = parseRequestTarget(req.url));
    } catch (e) {
      bad = e as ApiError;
      pathname = (req.url ?? "/").split("?")[0]!.slice(0, 200);
    }
    res.on("close", () => {
      ctx.log(`${method} ${pathname} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
    });
    // Routes that answer at once are carried out without a promise in between.
    let out: Outcome | Promise<Outcome>;
    try {
      if (bad) throw bad;
      out = dispatch(ctx, req, res, method, pathname, search);
    } catch (e) {
      fail(ctx, res, method, pathname, e);
      return;
    }
    if (isPromise(out)) {
      out.then(
        (o) => answer(ctx, res, method, o),
        (e: unknown) => fail(ctx, res, method, pathname, e),
      );
    } else answer(ctx, res, method, out);
  };
}

/** A route's reply, or undefined when the request was answered already (a route's stream, a cut). */
type Outcome = Reply | undefined;

function isPromise<T>(x: T | Promise<T>): x is Promise<T> {
  return typeof (x as { then?: unknown } | undefined)?.then === "function";
}

/** Writes a reply once what it may have read is committed; a failed commit answers 500 instead. */
function answer(ctx: ServerContext, res: ServerResponse, method: string, out: Outcome): void {
  if (!out) return;
  afterCommit(
    ctx.store,
    () => send(res, method, out),
    (e) => unsaved(ctx, res, e),
  );
}

function fail(ctx: ServerContext, res: ServerResponse, method: string, pathname: string, e: unknown): void {
  if (!(e instanceof ApiError))
    ctx.log(`internal error on ${method} ${pathname}: ${(e as Error)?.stack ?? String(e)}`);
  const err = e instanceof ApiError ? e : new ApiError("INTERNAL_ERROR", "internal server error");
  afterCommit(
    ctx.store,
    () => sendError(res, err),
    (e) => unsaved(ctx, res, e),
  );
}

function unsaved(ctx: ServerContext, res: ServerResponse, e: Error): void {
  ctx.log(`reply held back: ${e.message}`);
  writeDirectly(res);
  sendError(res, unsavedError());
}

function dispatch(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  pathname: string,
  search: string,
): Outcome | Promise<Outcome> {
  let router: Router;
  let path: string;
  let isAdmin = false;
  if (pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`)) {
    router = ctx.router;
    path = pathname.slice(API_PREFIX.length) || "/";
  } else if (pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`)) {
    router = ctx.admin;
    path = pathname.slice(ADMIN_PREFIX.length) || "/";
    isAdmin = true;
  } else if (ROOT_ALIASES.has(pathname)) {
    router = ctx.router;
    path = pathname;
  } else if (ctx.site.serves(pathname)) {
    router = ctx.site;
    path = pathname;
    isAdmin = true; // faults are for API requests, not pages
  } else {
    throw new ApiError(
      "ROUTE_NOT_FOUND",
      `no route ${method} ${pathname} (the API lives under ${API_PREFIX})`,
    );
  }

  const fault = isAdmin ? undefined : ctx.faults.take(method, path);
  if (!fault) return route(ctx, req, res, router, method, pathname, path, search);
  return withFault(req, res, fault, () => route(ctx, req, res, router, method, pathname, path, search));
}

/** Carries out an injected fault: a delay, then an error or a cut instead of the route or after it. */
async function withFault(
  req: IncomingMessage,
  res: ServerResponse,
  fault: Fault,
  run: () => Outcome | Promise<Outcome>,
): Promise<Outcome> {
  if (fault.latency_ms) await sleep(fault.latency_ms);
  if (fault.when === "after" && (fault.status || fault.drop)) {
    // Carry the request out, then lose its answer: an error in its place, or a cut connection.
    try {
      await run();
    } catch {
      // Refused or failed: the caller learns nothing of it either way.
    }
    if (fault.drop || res.headersSent) {
      cut(req, res);
      return undefined;
    }
    throw faultError(fault);
  }
  if (fault.drop) {
    cut(req, res);
    return undefined;
  }
  if (fault.status) {
    req.resume();
    throw faultError(fault);
  }
  return run();
}

/** The error an injected fault answers with. */
function faultError(fault: Fault): ApiError {
  const headers: Record<string, string> = {};
  if (fault.retry_after_sec !== undefined) headers["retry-after"] = String(fault.retry_after_sec);
  return ApiError.custom(
    fault.status!,
    fault.reason ?? (fault.status === 429 ? "RATE_LIMITED" : "INJECTED_FAULT"),
    `injected fault ${fault.id}`,
    headers,
  );
}

/** Cuts the connection without an answer. */
function cut(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  res.destroy();
}

/** Authenticates and runs the matching route; its reply, or undefined when it answered itself. */
function route(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  router: Router,
  method: string,
  pathname: string,
  path: string,
  search: string,
): Outcome | Promise<Outcome> {
  const dt = req.headers["x-deployment-type"];
  let deploymentType: "master" | "shadow" | undefined;
  if (dt !== undefined) {
    const v = (Array.isArray(dt) ? dt[0]! : dt).trim();
    if (v !== "master" && v !== "shadow") {
      throw new ApiError(
        "INVALID_DEPLOYMENT_TYPE",
        `X-Deployment-Type must be master or shadow (got '${v}')`,
      );
    }
    deploymentType = v;
  }

  const match = router.match(method, path);
  if (match.routes.length === 0) {
    if (match.allowed.length > 0) {
      const allowed = [...new Set(match.allowed)].join(", ");
      throw new ApiError(
        "METHOD_NOT_ALLOWED",
        `method ${method} is not allowed on ${pathname} (allowed: ${allowed})`,
        { headers: { allow: allowed } },
      );
    }
    throw new ApiError("ROUTE_NOT_FOUND", `no route ${method} ${pathname}`);
  }

  const rc = new Exchange(req, res, method, path, search, deploymentType);
  return runRoutes(ctx, rc, match.routes, 0, undefined, pathname);
}

/** The RequestContext of one request; its query is parsed when a route first asks for it. */
class Exchange implements RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  params: Record<string, string> = {};
  org = "";
  readonly deploymentType: "master" | "shadow" | undefined;
  /** The endpoint of the route now answering (runRoutes sets it). */
  endpoint: Endpoint | undefined;
  /** Whether the request was charged to its org's rate limit (once, whatever routes it passes). */
  charged = false;
  private readonly search: string;
  private searchParams: URLSearchParams | undefined;
  private bodyRead: Promise<unknown> | undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    search: string,
    deploymentType: "master" | "shadow" | undefined,
  ) {
    this.req = req;
    this.res = res;
    this.method = method;
    this.path = path;
    this.search = search;
    this.deploymentType = deploymentType;
  }

  get query(): URLSearchParams {
    return (this.searchParams ??= new URLSearchParams(this.search));
  }

  json(opts?: { limitBytes?: number }): Promise<unknown> {
    return (this.bodyRead ??= readJsonBody(this.req, opts?.limitBytes));
  }

  body(): Promise<unknown> {
    return endpointBody(this, this.endpoint);
  }

  parsedQuery(): unknown {
    return endpointQuery(this, this.endpoint);
  }
}

/** The first answer of the matching routes from `from` on (a route returning NEXT passes). */
function runRoutes(
  ctx: ServerContext,
  rc: Exchange,
  routes: Match["routes"],
  from: number,
  authed: RouteAuth | undefined,
  pathname: string,
): Outcome | Promise<Outcome> {
  for (let i = from; i < routes.length; i++) {
    const { route: r, params } = routes[i]!;
    rc.params = params;
    rc.endpoint = r.endpoint;
    if (authed !== r.auth) {
      authenticate(ctx, rc, r.auth, params);
      authed = r.auth;
    }
    const out = r.handler(rc);
    if (isPromise(out)) {
      const auth = authed;
      return out.then((o) => (o === NEXT ? runRoutes(ctx, rc, routes, i + 1, auth, pathname) : o));
    }
    if (out !== NEXT) return out;
  }
  throw new ApiError("ROUTE_NOT_FOUND", `no route ${rc.method} ${pathname}`);
}

function send(res: ServerResponse, method: string, out: Reply): void {
  if (method === "HEAD") {
    res.writeHead(out.status, out.headers);
    res.end();
    return;
  }
  sendJson(res, out.status, out.body, out.headers);
}

function authenticate(
  ctx: ServerContext,
  rc: Exchange,
  auth: RouteAuth,
  params: Record<string, string>,
): void {
  if (auth === "none") return;
  const token = bearer(rc.req);
  if (auth === "admin") {
    if (!token || token !== ctx.options.adminToken)
      throw new ApiError(
        "UNAUTHORIZED",
        "missing or invalid admin token (Authorization: Bearer <admin token>)",
      );
    return;
  }
  if (!token)
    throw new ApiError("UNAUTHORIZED", "missing credentials: send Authorization: Bearer <API token>");
  const org = ctx.orgOfToken(token);
  if (!org) throw new ApiError("UNAUTHORIZED", "invalid API token");
  rc.org = org;
  if (!rc.charged) {
    // The token's org pays, before the path's org is checked: no org spends another's budget.
    rc.charged = true;
    const limited = ctx.rateLimits.take(org);
    if (limited) for (const [k, v] of Object.entries(limited)) rc.res.setHeader(k, v);
  }
  if (auth === "org" && params.org !== undefined && params.org !== org) {
    throw new ApiError("FORBIDDEN", `the API token is not valid for organization ${params.org}`);
  }
}
