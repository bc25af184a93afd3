import { PageQuery, SshKeyCreate } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody } from "../http/io.ts";
import { sshKeyView } from "../views.ts";
import { registerCollectionRoutes } from "./collection.ts";

/** SSH keys (spec 4.6): requests to SshKeyService (ssh-keys/service.ts). */
export function registerSshKeyRoutes(ctx: ServerContext): void {
  const { router } = ctx;
  const keys = ctx.services.sshKeys;

  router.post("/orgs/:org/ssh-keys", async (rc) => {
    const body = await parseBody(rc, SshKeyCreate, { reason: "SSH_KEY_INVALID" });
    return { status: 201, body: sshKeyView(keys.create(rc.org, body)) };
  });
  registerCollectionRoutes(router, "ssh-keys", keys, sshKeyView, PageQuery);
}
