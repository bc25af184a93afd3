import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerContext, UpgradeHandler } from "../context.ts";
import { ApiError } from "./errors.ts";
import { readJsonBody } from "./io.ts";
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
  const data = Buffer.from(JSON.stringify(body), "utf8");
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": data.length,
    ...headers,
  });
  res.end(data);
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
    try {
      const u = new URL(req.url ?? "/", "http://localhost");
      pathname = u.pathname;
      search = u.search;
    } catch {
      pathname = "/";
    }
    res.on("close", () => {
      ctx.log(`${method} ${pathname} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
    });
    dispatch(ctx, req, res, method, pathname, new URLSearchParams(search)).catch((e: unknown) => {
      if (e instanceof ApiError) sendError(res, e);
      else {
        ctx.log(`internal error on ${method} ${pathname}: ${(e as Error)?.stack ?? String(e)}`);
        sendError(res, new ApiError("INTERNAL_ERROR", "internal server error"));
      }
    });
  };
}

async function dispatch(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  pathname: string,
  query: URLSearchParams,
) {
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

  if (!isAdmin) {
    const fault = ctx.faults.take(method, path);
    if (fault) {
      if (fault.latency_ms) await sleep(fault.latency_ms);
      if (fault.status) {
        const headers: Record<string, string> = {};
        if (fault.retry_after_sec !== undefined) headers["retry-after"] = String(fault.retry_after_sec);
        req.resume();
        throw ApiError.custom(
          fault.status,
          fault.reason ?? (fault.status === 429 ? "RATE_LIMITED" : "INJECTED_FAULT"),
          `injected fault ${fault.id}`,
          headers,
        );
      }
    }
  }

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
  for (const { route, params } of match.routes) {
    rc.params = params;
    if (authed !== route.auth) {
      authenticate(ctx, rc, route.auth, params);
      authed = route.auth;
    }
    const out = await route.handler(rc);
    if (out === NEXT) continue;
    if (out !== undefined) send(res, method, out);
    return;
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

/** The node:http 'upgrade' listener: offers /v3 upgrades to the registered handlers in turn. */
export function createUpgradeListener(ctx: ServerContext, handlers: UpgradeHandler[]) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const reject = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    socket.on("error", () => socket.destroy());
    let pathname: string;
    try {
      pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    } catch {
      reject(400, "Bad Request");
      return;
    }
    if (!pathname.startsWith(`${API_PREFIX}/`)) {
      reject(404, "Not Found");
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
          reject(500, "Internal Server Error");
          return;
        }
      }
      ctx.log(`UPGRADE ${pathname} 404`);
      reject(404, "Not Found");
    })();
  };
}
