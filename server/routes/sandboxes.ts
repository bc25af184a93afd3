import type { ServerContext } from "../context.ts";
import { SandboxService } from "../sandbox/service.ts";
import { registerSandboxFileRoutes } from "./sandbox-files.ts";
import { registerSandboxOpRoutes } from "./sandbox-ops.ts";
import { registerSandboxTerminalRoutes } from "./sandbox-terminals.ts";
import { registerSandboxWebSockets } from "./sandbox-ws.ts";

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
