// The sandbox route module: starts the sandbox service and registers the sandbox routes.

import type { ServerContext } from "../../context.ts";
import { SandboxService } from "../service.ts";
import { registerSandboxFileRoutes } from "./files.ts";
import { registerSandboxOpRoutes } from "./ops.ts";
import { registerSandboxTerminalRoutes } from "./terminals.ts";
import { registerSandboxWebSockets } from "./sockets.ts";

/**
 * The sandbox module (spec 4.2): real bubblewrap sandboxes behind SANDBOX workloads. Starts the
 * sandbox service (its runtimes live under options.sandboxRoot, or a temporary directory removed
 * on close), sets the lifecycle hooks and registers the sandbox routes and WebSockets.
 */
export function registerSandboxRoutes(ctx: ServerContext): void {
  const svc = new SandboxService(ctx);
  svc.install();
  registerSandboxOpRoutes(ctx, svc);
  registerSandboxFileRoutes(ctx, svc);
  registerSandboxTerminalRoutes(ctx, svc);
  registerSandboxWebSockets(ctx, svc);
  ctx.onClose(() => svc.close());
}
