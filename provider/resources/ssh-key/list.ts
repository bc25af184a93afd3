/**
 * The SSH key list (`list "cws_ssh_key"`, and `cws adopt`'s keys): every SSH key of the org (the
 * list route has no filter).
 */
import type { ListDefinition } from "../../core/list.ts";

export const sshKeyList: ListDefinition = {
  kind: "SshKey",
  description: "The org's SSH keys, in the service's order.",
  filters: {},
  async *list(client, _f, signal) {
    for await (const k of client.sshKeys.iterate({}, { signal }))
      yield { kind: "SshKey", uid: k.uid, name: k.name, createdAt: k.created_at };
  },
};
