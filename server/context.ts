import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import type { Faults } from "./http/faults.ts";
import type { RateLimits } from "./http/rate-limit.ts";
import type { Router } from "./http/router.ts";
import type { ServerTimeouts } from "./http/timeouts.ts";
import type { Lifecycle } from "./workloads/lifecycle.ts";
import type { Seed } from "./seed/schema.ts";
import type { Services } from "./services.ts";
import type { Store } from "./store/store.ts";
import type { Clock } from "./common/util.ts";

export interface ResolvedOptions {
  host: string;
  port: number;
  dataDir: string | undefined;
  seed: Seed;
  provisionDelayMs: number;
  adminToken: string;
  sandboxRoot: string | undefined;
  /** The server's own timeouts (http/timeouts.ts). */
  timeouts: ServerTimeouts;
}

/**
 * A WebSocket upgrade handler: return true when it took the request (it then owns the socket,
 * e.g. `ctx.wss.handleUpgrade(req, socket, head, cb)`), false to let the next one try.
 * Unclaimed upgrades get 404. `path` is the path after /v3.
 */
export type UpgradeHandler = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  path: string,
) => boolean | Promise<boolean>;

/** What every route module receives. */
export interface ServerContext {
  options: ResolvedOptions;
  store: Store;
  lifecycle: Lifecycle;
  /** The per-resource services (services.ts): what routes call. */
  services: Services;
  clock: Clock;
  /** Routes under /v3 (patterns relative to it, e.g. "/orgs/:org/workloads"). */
  router: Router;
  /** Routes under /admin (admin token). */
  admin: Router;
  /** Pages outside /v3 and /admin (the dashboard); patterns are full paths, e.g. "/". */
  site: Router;
  faults: Faults;
  /**
   * Per-org request rate limits: `take(org)` charges one request of the org (429 RATE_LIMITED
   * when over; the router does it for every authenticated API request, an upgrade handler once
   * it knows the org).
   */
  rateLimits: RateLimits;
  /** A ws server in noServer mode for upgrade handlers. */
  wss: WebSocketServer;
  onUpgrade(handler: UpgradeHandler): void;
  /** Org of a bearer token, if valid. */
  orgOfToken(token: string): string | undefined;
  /** Called when the server closes (after the HTTP listener stops). */
  onClose(fn: () => void | Promise<void>): void;
  log(line: string): void;
}

export { Faults } from "./http/faults.ts";
