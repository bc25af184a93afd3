/**
 * The SSH key list (`list "cws_ssh_key"`, and `cws adopt`'s keys): every SSH key of the org (the
 * list route has no filter).
 */
import { listDefinition, pageOf } from "../../core/list.ts";

export const sshKeyList = listDefinition({
  kind: "SshKey",
  description: "The org's SSH keys, in the service's order.",
  filters: {},
  async page(client, _f, at, signal) {
    return pageOf(await client.sshKeys.list(at, { signal }), (k) => ({
      kind: "SshKey",
      uid: k.uid,
      name: k.name,
      createdAt: k.created_at,
    }));
  },
});
