import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Fault } from "../../api/index.ts";
import type { ServerContext, UpgradeHandler } from "../context.ts";
import { ApiError } from "./errors.ts";
import { durableResponses, unsavedError, whenDurable, writeDirectly } from "./durable.ts";
import { readJsonBody } from "./io.ts";
import { parseRequestTarget } from "./path.ts";
import { NEXT, type Reply, type RequestContext, type Router, type RouteAuth } from "./router.ts";

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
    const run = bad
      ? Promise.reject(bad)
      : dispatch(ctx, req, res, method, pathname, new URLSearchParams(search));
    run.then(
      (out) => {
        if (out) answer(ctx, res, () => send(res, method, out));
      },
      (e: unknown) => {
        if (!(e instanceof ApiError))
          ctx.log(`internal error on ${method} ${pathname}: ${(e as Error)?.stack ?? String(e)}`);
        const err = e instanceof ApiError ? e : new ApiError("INTERNAL_ERROR", "internal server error");
        answer(ctx, res, () => sendError(res, err));
      },
    );
  };
}

/** Writes a reply once what it may have read is committed; a failed commit answers 500 instead. */
function answer(ctx: ServerContext, res: ServerResponse, write: () => void): void {
  whenDurable(ctx.store, write, (e) => {
    ctx.log(`reply held back: ${e.message}`);
    writeDirectly(res);
    sendError(res, unsavedError());
  });
}

/** The reply of the request, or undefined when it was answered already (a route's stream, a cut). */
async function dispatch(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  pathname: string,
  query: URLSearchParams,
): Promise<Reply | undefined> {
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

  let after: Fault | undefined;
  if (!isAdmin) {
    const fault = ctx.faults.take(method, path);
    if (fault) {
      if (fault.latency_ms) await sleep(fault.latency_ms);
      if (fault.when === "after" && (fault.status || fault.drop)) after = fault;
      else if (fault.drop) {
        cut(req, res);
        return undefined;
      } else if (fault.status) {
        req.resume();
        throw faultError(fault);
      }
    }
  }
  if (!after) return route(ctx, req, res, router, method, pathname, path, query);
  // Carry the request out, then lose its answer: an error in its place, or a cut connection.
  try {
    await route(ctx, req, res, router, method, pathname, path, query);
  } catch {
    // Refused or failed: the caller learns nothing of it either way.
  }
  if (after.drop || res.headersSent) {
    cut(req, res);
    return undefined;
  }
  throw faultError(after);
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
async function route(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  router: Router,
  method: string,
  pathname: string,
  path: string,
  query: URLSearchParams,
): Promise<Reply | undefined> {
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
  let authed: RouteAuth | undefined;
  for (const { route: r, params } of match.routes) {
    rc.params = params;
    if (authed !== r.auth) {
      authenticate(ctx, rc, r.auth, params);
      authed = r.auth;
    }
    const out = await r.handler(rc);
    if (out === NEXT) continue;
    return out;
  }
  throw new ApiError("ROUTE_NOT_FOUND", `no route ${method} ${pathname}`);
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
