import { SSH_KEYS } from "../../api/endpoints/index.ts";
import type { ServerContext } from "../context.ts";
import { serve } from "../http/endpoints.ts";
import { sshKeyView } from "./views.ts";
import { serveResource } from "../common/resource-routes.ts";

/** SSH keys (spec 4.6): requests to SshKeyService (ssh-keys/service.ts). */
export function registerSshKeyRoutes(ctx: ServerContext): void {
  const keys = ctx.services.sshKeys;
  serve(ctx, SSH_KEYS.create, async (rc) => ({
    status: 201,
    body: sshKeyView(keys.create(rc.org, await rc.body())),
  }));
  serveResource(ctx, SSH_KEYS, keys, sshKeyView);
}
