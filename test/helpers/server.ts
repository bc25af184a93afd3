/** The one way tests start an in-process reference server. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type ServerOptions } from "../../server/index.ts";

export type Server = Awaited<ReturnType<typeof startServer>>;
export type TestServer = Server & { stop(): Promise<void> };

export const DEMO_TOKEN = "demo-token";
export const OTHER_TOKEN = "other-token";
export const ADMIN_TOKEN = "admin-token";

/**
 * A server on a free port with a short provisioning delay. With `tempSandboxRoot`, sandboxes live
 * in a fresh temporary directory (prefix `tempSandboxRoot`) that stop() removes with the server.
 */
export async function startTestServer(
  opts: ServerOptions & { tempSandboxRoot?: string } = {},
): Promise<TestServer> {
  const { tempSandboxRoot, ...options } = opts;
  const sandboxRoot = tempSandboxRoot ? mkdtempSync(join(tmpdir(), tempSandboxRoot)) : undefined;
  const server = await startServer({
    port: 0,
    provisionDelayMs: 20,
    ...(sandboxRoot ? { sandboxRoot } : {}),
    ...options,
  });
  return {
    ...server,
    async stop() {
      await server.close();
      if (sandboxRoot) rmSync(sandboxRoot, { recursive: true, force: true });
    },
  };
}
