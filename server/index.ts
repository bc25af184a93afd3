import { createServer, type Server } from "node:http";
import { checkExposure, DEFAULT_ADMIN_TOKEN } from "./http/exposure.ts";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { Faults, type ResolvedOptions, type ServerContext, type UpgradeHandler } from "./context.ts";
import { bodySafeResponses, RequestBodies } from "./http/bodies.ts";
import { durableResponses, writeDirectly } from "./http/durable.ts";
import { resolveTimeouts, TIMEOUT_CHECK_MS, type ServerTimeouts } from "./http/timeouts.ts";
import { Router } from "./http/router.ts";
import {
  API_PREFIX,
  ADMIN_PREFIX,
  createRequestListener,
  createUpgradeListener,
  onClientError,
  sendError,
} from "./http/server.ts";
import { Lifecycle } from "./workloads/lifecycle.ts";
import { ROUTE_MODULES, type RouteModule } from "./modules.ts";
import { applySeed } from "./seed/apply.ts";
import { DEFAULT_SEED } from "./seed/data.ts";
import { loadSeedFile, type Seed } from "./seed/schema.ts";
import { createServices } from "./services.ts";
import { Store } from "./store/store.ts";
import { iso, systemClock, type Clock } from "./common/util.ts";
import { orgOfToken } from "./http/auth.ts";
import { RateLimits } from "./http/rate-limit.ts";
import { RateLimitSetting } from "../api/index.ts";

export type { ServerContext, UpgradeHandler } from "./context.ts";
export type { Services } from "./services.ts";
export type { WorkloadHooks } from "./workloads/lifecycle.ts";
export type { RouteModule } from "./modules.ts";
export type { Seed } from "./seed/schema.ts";
export type { ServerTimeouts } from "./http/timeouts.ts";
export { DEFAULT_SEED } from "./seed/data.ts";
export { ApiError } from "./http/errors.ts";
export { NEXT, Router, type RequestContext, type Reply } from "./http/router.ts";

export interface ServerOptions {
  host?: string;
  /** 0 picks a free port. Default 8080. */
  port?: number;
  /** Directory of the sqlite database; omitted: state lives in memory. */
  dataDir?: string;
  /** A seed object or the path of a seed JSON file; used when the data dir is empty. */
  seed?: Seed | string;
  /** How long a deploy stays provisioning before running (default 300 ms). */
  provisionDelayMs?: number;
  /** Bearer token of the /admin surface (default "admin-token"). */
  adminToken?: string;
  /** One line per request; default: silent. */
  log?: (line: string) => void;
  /** Directory the sandbox module keeps sandboxes in. */
  sandboxRoot?: string;
  /** Extra route modules, registered after the built-in ones (e.g. the sandbox module). */
  extensions?: RouteModule[];
  /** Time source (tests). */
  clock?: Clock;
  /**
   * Serve the built-in demo and admin tokens on a non-loopback host (refused otherwise:
   * startServer throws and says which tokens and how to set your own).
   */
  allowDemoTokens?: boolean;
  /** Key file of the secrets encrypted in the data dir (default <dataDir>/cws.key). */
  secretKeyFile?: string;
  /**
   * Request rate limit of every org (a token bucket per org: `rps` a second, `burst` at once,
   * default rps rounded up); an org's `rate_limit` in the seed and the admin API override it.
   * Default: no limit.
   */
  rateLimit?: RateLimitSetting;
  /**
   * The server's own timeouts, in milliseconds (docs/reference-server.md, "Timeouts and the
   * answer bound"): `headersMs` (default 10 s), `bodyIdleMs` (10 s), `requestMs` (300 s),
   * `keepAliveMs` (65 s), `sandboxWaitMs` (5 s).
   */
  timeouts?: Partial<ServerTimeouts>;
}

export interface RunningServer {
  /** http://host:port/v3 */
  baseUrl: string;
  /** http://host:port */
  origin: string;
  /** http://host:port/admin */
  adminUrl: string;
  port: number;
  close(): Promise<void>;
  /** The shared context, for in-process extension. */
  context: ServerContext;
  http: Server;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  if (options.rateLimit !== undefined) {
    const checked = RateLimitSetting.safeParse(options.rateLimit);
    if (!checked.success)
      throw new Error(`rateLimit: ${checked.error.issues.map((i) => i.message).join("; ")}`);
  }
  const timeouts = resolveTimeouts(options.timeouts);
  const seed = typeof options.seed === "string" ? loadSeedFile(options.seed) : (options.seed ?? DEFAULT_SEED);
  const resolved: ResolvedOptions = {
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 8080,
    dataDir: options.dataDir,
    seed,
    provisionDelayMs: options.provisionDelayMs ?? 300,
    adminToken: options.adminToken ?? DEFAULT_ADMIN_TOKEN,
    sandboxRoot: options.sandboxRoot,
    timeouts,
  };
  const log = options.log ?? (() => {});
  const clock = options.clock ?? systemClock;
  const store = new Store(resolved.dataDir, { keyFile: options.secretKeyFile });
  try {
    checkExposure({
      host: resolved.host,
      seed: store.isSeeded() ? store.seed : seed,
      adminToken: resolved.adminToken,
      allowDemoTokens: options.allowDemoTokens,
    });
  } catch (e) {
    store.close();
    throw e;
  }
  if (!store.isSeeded()) applySeed(store, seed, iso(clock));
  const lifecycle = new Lifecycle(store, clock, { provisionDelayMs: resolved.provisionDelayMs, log });
  const faults = new Faults();
  const rateLimits = new RateLimits({
    clock,
    server: options.rateLimit,
    seed: (org) => store.seed.orgs.find((o) => o.slug === org)?.rate_limit,
  });
  const upgradeHandlers: UpgradeHandler[] = [];
  const closers: (() => void | Promise<void>)[] = [];
  const context: ServerContext = {
    options: resolved,
    store,
    lifecycle,
    services: createServices(store, lifecycle, faults, rateLimits),
    clock,
    router: new Router(),
    admin: new Router(),
    site: new Router(),
    faults,
    rateLimits,
    wss: new WebSocketServer({ noServer: true }),
    onUpgrade: (h) => void upgradeHandlers.push(h),
    orgOfToken: (token) => orgOfToken(store, token),
    onClose: (fn) => void closers.push(fn),
    log,
  };
  for (const register of [...ROUTE_MODULES, ...(options.extensions ?? [])]) await register(context);
  lifecycle.start();

  const bodies = new RequestBodies(timeouts.bodyIdleMs, (res, e) => {
    writeDirectly(res);
    sendError(res, e);
  });
  closers.push(() => bodies.close());
  const listener = createRequestListener(context, bodies);
  const http = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
      ServerResponse: bodySafeResponses(durableResponses(store)),
    },
    listener,
  );
  http.on("upgrade", createUpgradeListener(context, upgradeHandlers, listener));
  http.on("clientError", onClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(resolved.port, resolved.host, () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (e) {
    lifecycle.close();
    store.close();
    throw e;
  }
  const port = (http.address() as AddressInfo).port;
  const hostPart = resolved.host.includes(":") ? `[${resolved.host}]` : resolved.host;
  const origin = `http://${hostPart}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: `${origin}${API_PREFIX}`,
    origin,
    adminUrl: `${origin}${ADMIN_PREFIX}`,
    port,
    context,
    http,
    close() {
      closing ??= (async () => {
        lifecycle.close();
        for (const fn of closers) {
          try {
            await fn();
          } catch (e) {
            log(`close hook failed: ${(e as Error).message}`);
          }
        }
        try {
          await lifecycle.hooks.onClose?.();
        } catch (e) {
          log(`sandbox close hook failed: ${(e as Error).message}`);
        }
        for (const ws of context.wss.clients) ws.terminate();
        context.wss.close();
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
        store.close();
      })();
      return closing;
    },
  };
}
