import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Fault } from "../../api/index.ts";
import type { ServerContext, UpgradeHandler } from "../context.ts";
import { ApiError } from "./errors.ts";
import { afterCommit, durableResponses, unsavedError, writeDirectly } from "./durable.ts";
import { readJsonBody } from "./io.ts";
import { parseRequestTarget } from "./path.ts";
import { NEXT, type Match, type Reply, type RequestContext, type Router, type RouteAuth } from "./router.ts";

export const API_PREFIX = "/v3";
export const ADMIN_PREFIX = "/admin";
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
  headers: Record<string, string> = {},
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
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(data, "utf8"),
    ...headers,
  });
  res.end(data, "utf8");
}

export function sendError(res: ServerResponse, e: ApiError): void {
  sendJson(res, e.status, { error: e.message, reason: e.reason }, e.headers);
}

/** The node:http request listener: logging, faults, auth, routing, errors. */
export function createRequestListener(ctx: ServerContext) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
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
      out = dispatch(ctx, req, res, method, pathname, new URLSearchParams(search));
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
  query: URLSearchParams,
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
  if (!fault) return route(ctx, req, res, router, method, pathname, path, query);
  return withFault(req, res, fault, () => route(ctx, req, res, router, method, pathname, path, query));
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
  query: URLSearchParams,
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

  let bodyPromise: Promise<unknown> | undefined;
  const rc: RequestContext = {
    req,
    res,
    method,
    path,
    params: {},
    query,
    org: "",
    deploymentType,
    json(opts) {
      bodyPromise ??= readJsonBody(req, opts?.limitBytes);
      return bodyPromise;
    },
  };
  return runRoutes(ctx, rc, match.routes, 0, undefined, pathname);
}

/** The first answer of the matching routes from `from` on (a route returning NEXT passes). */
function runRoutes(
  ctx: ServerContext,
  rc: RequestContext,
  routes: Match["routes"],
  from: number,
  authed: RouteAuth | undefined,
  pathname: string,
): Outcome | Promise<Outcome> {
  for (let i = from; i < routes.length; i++) {
    const { route: r, params } = routes[i]!;
    rc.params = params;
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
  rc: RequestContext,
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
  if (auth === "org" && params.org !== undefined && params.org !== org) {
    throw new ApiError("FORBIDDEN", `the API token is not valid for organization ${params.org}`);
  }
}

/** Writes an API error on a raw socket (an upgrade that is refused), then closes it. */
export function writeSocketError(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify({ error: err.message, reason: err.reason });
  if (socket.destroyed || !socket.writable) return;
  const extra = Object.entries(err.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? "Error"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      extra +
      "Connection: close\r\n\r\n" +
      body,
  );
}

/**
 * The checks RFC 6455 puts on a WebSocket handshake (GET, Upgrade: websocket, version 13,
 * a 16-byte base64 key), as API errors: the WebSocket library would answer them in text.
 */
export function checkWebSocketHandshake(req: IncomingMessage): void {
  if (req.method !== "GET")
    throw ApiError.custom(400, "WEBSOCKET_HANDSHAKE_INVALID", "a WebSocket handshake must be a GET request");
  const version = req.headers["sec-websocket-version"];
  if (version !== "13")
    throw ApiError.custom(
      426,
      "WEBSOCKET_HANDSHAKE_INVALID",
      `Sec-WebSocket-Version must be 13 (got ${version === undefined ? "none" : `'${String(version).slice(0, 50)}'`})`,
      { "sec-websocket-version": "13" },
    );
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || !/^[A-Za-z0-9+/]{22}==$/.test(key.trim()))
    throw ApiError.custom(
      400,
      "WEBSOCKET_HANDSHAKE_INVALID",
      "Sec-WebSocket-Key must be the base64 of 16 bytes",
    );
}

/**
 * The node:http 'upgrade' listener. WebSocket upgrades are offered to the registered
 * handlers in turn; a request that none of them takes (another protocol such as h2c, or a
 * WebSocket upgrade of a REST route) is answered as the plain HTTP/1.1 request it also is,
 * by `plain` (the request listener): the Upgrade header is ignored, as HTTP allows.
 */
export function createUpgradeListener(
  ctx: ServerContext,
  handlers: UpgradeHandler[],
  plain: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const answerPlain = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const length = req.headers["content-length"];
    if (
      (length !== undefined && length !== "0") ||
      req.headers["transfer-encoding"] !== undefined ||
      head.length
    ) {
      // node:http hands over the socket of an upgrade unparsed: a body cannot be read here.
      writeSocketError(
        socket,
        new ApiError(
          "INVALID_BODY",
          "a request with a body cannot ask for a protocol upgrade; drop the Upgrade header",
        ),
      );
      return;
    }
    const res = new (durableResponses(ctx.store))(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on("finish", () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    req.push(null);
    plain(req, res);
  };
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => socket.destroy());
    const isWebSocket = String(req.headers.upgrade ?? "").toLowerCase() === "websocket";
    let pathname: string;
    try {
      pathname = parseRequestTarget(req.url).pathname;
    } catch (e) {
      writeSocketError(socket, e as ApiError);
      return;
    }
    if (!isWebSocket || !pathname.startsWith(`${API_PREFIX}/`)) {
      answerPlain(req, socket, head);
      return;
    }
    const path = pathname.slice(API_PREFIX.length);
    void (async () => {
      for (const h of handlers) {
        try {
          if (await h(req, socket, head, path)) {
            ctx.log(`UPGRADE ${pathname} 101`);
            return;
          }
        } catch (e) {
          ctx.log(`upgrade handler error on ${pathname}: ${(e as Error).message}`);
          writeSocketError(
            socket,
            e instanceof ApiError
              ? e
              : new ApiError("SERVICE_UNAVAILABLE", "the WebSocket could not be opened; try again"),
          );
          return;
        }
      }
      answerPlain(req, socket, head);
    })();
  };
}

/**
 * The node:http 'clientError' listener: requests the HTTP parser refuses (bad request line
 * or headers, headers too large) get the API's JSON error body too.
 */
export function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const e =
    err.code === "HPE_HEADER_OVERFLOW"
      ? ApiError.custom(431, "HEADERS_TOO_LARGE", "request headers are too large")
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ApiError.custom(408, "REQUEST_TIMEOUT", "the request was not received in time")
        : ApiError.custom(
            400,
            "MALFORMED_REQUEST",
            `the HTTP request is malformed (${err.code ?? "parse error"})`,
          );
  writeSocketError(socket, e);
}
