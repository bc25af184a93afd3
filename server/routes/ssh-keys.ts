import { PageQuery, SshKeyCreate, SshKeyPatch } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import { paginate, parseBody, parseQuery } from "../http/io.ts";
import type { SshKeyRecord } from "../records.ts";
import { newUid } from "../util.ts";
import { sshKeyView } from "../views.ts";
import { isLive } from "../workloads.ts";

/** SSH keys (spec 4.6). Delete of a key a live workload uses is refused (409 SSH_KEY_IN_USE). */
export function registerSshKeyRoutes(ctx: ServerContext): void {
  const { router, store, lifecycle: lc } = ctx;
  const get = (org: string, uid: string): SshKeyRecord => {
    const k = store.sshKeys.getIn(org, uid);
    if (!k) throw new ApiError("SSH_KEY_NOT_FOUND", `SSH key ${uid} not found`);
    return k;
  };

  router.post("/orgs/:org/ssh-keys", async (rc) => {
    const body = await parseBody(rc, SshKeyCreate, { reason: "SSH_KEY_INVALID" });
    const now = lc.now();
    const k: SshKeyRecord = {
      uid: newUid("key"),
      org: rc.org,
      name: body.name,
      public_key_raw: body.ssh_key.trim(),
      created_at: now,
      updated_at: now,
    };
    store.sshKeys.put(k);
    return { status: 201, body: sshKeyView(k) };
  });

  router.get("/orgs/:org/ssh-keys", (rc) => {
    const page = paginate(
      store.sshKeys.list(rc.org),
      parseQuery(rc, PageQuery),
      undefined,
      undefined,
      (uid) => store.sshKeys.seqOf(uid),
    );
    return { status: 200, body: { items: page.items.map(sshKeyView), next_cursor: page.next_cursor } };
  });

  router.get("/orgs/:org/ssh-keys/:uid", (rc) => ({
    status: 200,
    body: sshKeyView(get(rc.org, rc.params.uid!)),
  }));

  router.patch("/orgs/:org/ssh-keys/:uid", async (rc) => {
    const k = get(rc.org, rc.params.uid!);
    const body = await parseBody(rc, SshKeyPatch, { reason: "SSH_KEY_INVALID" });
    if (body.name !== k.name) {
      k.name = body.name;
      k.updated_at = lc.now();
      store.sshKeys.put(k);
    }
    return { status: 200, body: sshKeyView(k) };
  });

  router.delete("/orgs/:org/ssh-keys/:uid", (rc) => {
    const k = get(rc.org, rc.params.uid!);
    const users = store.workloads.list(rc.org).filter((w) => isLive(w) && w.ssh_keys.includes(k.uid));
    if (users.length) {
      throw new ApiError(
        "SSH_KEY_IN_USE",
        `SSH key ${k.uid} is attached to workload ${users.map((w) => w.uid).join(", ")}: detach it first`,
      );
    }
    store.sshKeys.remove(k.uid);
    return { status: 204 };
  });
}
