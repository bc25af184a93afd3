import { PageQuery, SshKeyCreate, SshKeyPatch } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { parseBody, parseQuery } from "../http/io.ts";
import { sshKeyView } from "../views.ts";

/** SSH keys (spec 4.6): requests to SshKeyService (ssh-keys.ts). */
export function registerSshKeyRoutes(ctx: ServerContext): void {
  const { router } = ctx;
  const keys = ctx.services.sshKeys;

  router.post("/orgs/:org/ssh-keys", async (rc) => {
    const body = await parseBody(rc, SshKeyCreate, { reason: "SSH_KEY_INVALID" });
    return { status: 201, body: sshKeyView(keys.create(rc.org, body)) };
  });

  router.get("/orgs/:org/ssh-keys", (rc) => {
    const page = keys.list(rc.org, parseQuery(rc, PageQuery));
    return { status: 200, body: { items: page.items.map(sshKeyView), next_cursor: page.next_cursor } };
  });

  router.get("/orgs/:org/ssh-keys/:uid", (rc) => ({
    status: 200,
    body: sshKeyView(keys.get(rc.org, rc.params.uid!)),
  }));

  router.patch("/orgs/:org/ssh-keys/:uid", async (rc) => {
    const k = keys.get(rc.org, rc.params.uid!);
    const body = await parseBody(rc, SshKeyPatch, { reason: "SSH_KEY_INVALID" });
    return { status: 200, body: sshKeyView(keys.update(k, body)) };
  });

  router.delete("/orgs/:org/ssh-keys/:uid", (rc) => {
    keys.delete(rc.org, rc.params.uid!);
    return { status: 204 };
  });
}
