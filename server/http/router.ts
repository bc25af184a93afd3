import type { IncomingMessage, ServerResponse } from "node:http";

/** Returned by a handler to let the next matching route answer instead. */
export const NEXT: unique symbol = Symbol("next-route");

/** What a handler answers; `undefined` when it wrote the response itself (streams). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Who may call a route. "org": bearer token of the org named by the :org path parameter. */
export type RouteAuth = "org" | "token" | "none" | "admin";

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** Path after the router's prefix (/v3 or /admin). */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Org the bearer token belongs to (set for authenticated routes). */
  org: string;
  /** X-Deployment-Type header (master or shadow) when given. */
  deploymentType: "master" | "shadow" | undefined;
  /** Raw JSON body (undefined when the request has none). Throws 415/400/413 as needed. */
  json(opts?: { limitBytes?: number }): Promise<unknown>;
}

export type Handler = (
  ctx: RequestContext,
) => Promise<Reply | typeof NEXT | undefined> | Reply | typeof NEXT | undefined;

interface Route {
  method: string;
  pattern: string;
  regex: RegExp;
  keys: string[];
  auth: RouteAuth;
  handler: Handler;
}

export interface Match {
  routes: { route: Route; params: Record<string, string> }[];
  /** Methods allowed on the path when no route matches the method. */
  allowed: string[];
}

/**
 * A small router: patterns with `:name` segments, tried in registration order (or first when
 * added with `{ first: true }`); a handler may return NEXT to pass to the next match.
 */
export class Router {
  private routes: Route[] = [];

  add(
    method: string,
    pattern: string,
    handler: Handler,
    opts: { auth?: RouteAuth; first?: boolean } = {},
  ): void {
    const keys: string[] = [];
    const source = pattern
      .split("/")
      .map((seg) => {
        if (seg.startsWith(":")) {
          keys.push(seg.slice(1));
          return "([^/]+)";
        }
        return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      })
      .join("/");
    const route: Route = {
      method: method.toUpperCase(),
      pattern,
      regex: new RegExp(`^${source}/?$`),
      keys,
      auth: opts.auth ?? "org",
      handler,
    };
    if (opts.first) this.routes.unshift(route);
    else this.routes.push(route);
  }

  get(p: string, h: Handler, o?: { auth?: RouteAuth; first?: boolean }) {
    this.add("GET", p, h, o);
  }
  post(p: string, h: Handler, o?: { auth?: RouteAuth; first?: boolean }) {
    this.add("POST", p, h, o);
  }
  put(p: string, h: Handler, o?: { auth?: RouteAuth; first?: boolean }) {
    this.add("PUT", p, h, o);
  }
  patch(p: string, h: Handler, o?: { auth?: RouteAuth; first?: boolean }) {
    this.add("PATCH", p, h, o);
  }
  delete(p: string, h: Handler, o?: { auth?: RouteAuth; first?: boolean }) {
    this.add("DELETE", p, h, o);
  }

  /** The registered routes in matching order (read-only view: method, pattern, auth). */
  list(): { method: string; pattern: string; auth: RouteAuth }[] {
    return this.routes.map(({ method, pattern, auth }) => ({ method, pattern, auth }));
  }

  /** Whether some route (any method) matches the path. */
  serves(path: string): boolean {
    return this.routes.some((r) => r.regex.test(path));
  }

  match(method: string, path: string): Match {
    const out: Match = { routes: [], allowed: [] };
    for (const route of this.routes) {
      const m = route.regex.exec(path);
      if (!m) continue;
      if (route.method !== method && !(method === "HEAD" && route.method === "GET")) {
        out.allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.keys.forEach((k, i) => {
        try {
          params[k] = decodeURIComponent(m[i + 1]!);
        } catch {
          params[k] = m[i + 1]!;
        }
      });
      out.routes.push({ route, params });
    }
    return out;
  }
}

export type { Route };
