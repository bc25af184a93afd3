import type { IncomingMessage, ServerResponse } from "node:http";
import type { Endpoint, EndpointAuth } from "../../api/endpoints/index.ts";

/** Returned by a handler to let the next matching route answer instead. */
export const NEXT: unique symbol = Symbol("next-route");

/** What a handler answers; `undefined` when it wrote the response itself (streams). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Who may call a route (the endpoint table's rule, api/endpoints/common.ts). */
export type RouteAuth = EndpointAuth;

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
  /** The endpoint of the table the answering route serves, if any (http/endpoints.ts). */
  endpoint: Endpoint | undefined;
  /** The body checked against the endpoint's schema (see EndpointContext). */
  body(): Promise<unknown>;
  /** The query checked against the endpoint's schema (see EndpointContext). */
  parsedQuery(): unknown;
}

export type Handler = (
  ctx: RequestContext,
) => Promise<Reply | typeof NEXT | undefined> | Reply | typeof NEXT | undefined;

interface Route {
  method: string;
  pattern: string;
  /** The pattern's `/`-separated segments: the literal text, or null for a `:name` parameter. */
  parts: (string | null)[];
  keys: string[];
  /**
   * How literal the pattern is, read from the left: a literal segment outranks a parameter in
   * the same place, so `/workloads/verify` outranks `/workloads/:uid` (OpenAPI's rule: concrete
   * paths match before templated ones).
   */
  rank: number;
  auth: RouteAuth;
  handler: Handler;
  /** The endpoint of the table the route serves (set by serve(), http/endpoints.ts). */
  endpoint?: Endpoint;
}

/**
 * The `/`-separated segments of a path, a trailing slash aside (`/orgs/demo/` is `/orgs/demo`).
 * Segments are compared as they are, percent-encoding kept; parameters are decoded once matched.
 */
function segmentsOf(path: string): string[] {
  const segs = path.split("/");
  if (path.length > 1 && path.endsWith("/")) segs.pop();
  return segs;
}

/** The parameters of `segs` when they match `route` (a parameter is one non-empty segment). */
function bind(route: Route, segs: readonly string[]): Record<string, string> | undefined {
  const parts = route.parts;
  // From the end: the last segments tell the routes of a collection apart.
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    if (p === null ? segs[i] === "" : p !== segs[i]) return undefined;
  }
  const params: Record<string, string> = {};
  let k = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] !== null) continue;
    const raw = segs[i]!;
    let value = raw;
    if (raw.includes("%")) {
      try {
        value = decodeURIComponent(raw);
      } catch {
        // kept as it is
      }
    }
    params[route.keys[k++]!] = value;
  }
  return params;
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
  /**
   * The routes by segment count, each list in matching order: a path is tried only against
   * routes with as many segments, since a parameter never spans a slash.
   */
  private bySegments: Map<number, Route[]> | undefined;

  add(
    method: string,
    pattern: string,
    handler: Handler,
    opts: { auth?: RouteAuth; first?: boolean; endpoint?: Endpoint } = {},
  ): void {
    const keys: string[] = [];
    const parts = segmentsOf(pattern).map((seg) => {
      if (!seg.startsWith(":")) return seg;
      keys.push(seg.slice(1));
      return null;
    });
    const route: Route = {
      method: method.toUpperCase(),
      pattern,
      parts,
      keys,
      rank: parts.reduce<number>((r, p) => r * 2 + (p === null ? 0 : 1), 0),
      auth: opts.auth ?? "org",
      handler,
      endpoint: opts.endpoint,
    };
    if (opts.first) this.routes.unshift(route);
    else this.routes.push(route);
    this.bySegments = undefined;
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

  /** The registered routes in matching order (read-only view: method, pattern, auth, endpoint). */
  list(): { method: string; pattern: string; auth: RouteAuth; endpoint?: Endpoint }[] {
    return this.routes.map(({ method, pattern, auth, endpoint }) => ({ method, pattern, auth, endpoint }));
  }

  /** Whether some route (any method) matches the path. */
  serves(path: string): boolean {
    const segs = segmentsOf(path);
    return this.candidates(segs.length).some((r) => bind(r, segs) !== undefined);
  }

  private candidates(segments: number): Route[] {
    if (!this.bySegments) {
      this.bySegments = new Map();
      for (const r of this.routes) {
        const list = this.bySegments.get(r.parts.length);
        if (list) list.push(r);
        else this.bySegments.set(r.parts.length, [r]);
      }
    }
    return this.bySegments.get(segments) ?? [];
  }

  /**
   * The routes of the path's most literal pattern that take the method, in matching order, or
   * else the methods that pattern takes (the `Allow` of a 405). Only the most literal pattern
   * serves a path: `/workloads/bm-images` is its own path, not a `/workloads/:uid`.
   */
  match(method: string, path: string): Match {
    let out: Match = { routes: [], allowed: [] };
    let best = -1;
    const segs = segmentsOf(path);
    for (const route of this.candidates(segs.length)) {
      if (route.rank < best) continue;
      const params = bind(route, segs);
      if (!params) continue;
      if (route.rank > best) {
        best = route.rank;
        out = { routes: [], allowed: [] };
      }
      if (route.method !== method && !(method === "HEAD" && route.method === "GET"))
        out.allowed.push(route.method);
      else out.routes.push({ route, params });
    }
    return out;
  }
}

export type { Route };
