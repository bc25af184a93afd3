/** `client.sshKeys`: spec section 4.6. */
import { SshKey, SshKeyList, type PageQuery, type SshKeyCreate, type SshKeyPatch } from "../api/index.ts";
import { Collection } from "./collection.ts";
import type { RequestOptions, Transport } from "./http.ts";

export class SshKeys extends Collection<SshKey, SshKey, PageQuery, SshKeyPatch> {
  constructor(transport: Transport) {
    super(transport, "ssh-keys", SshKey, SshKeyList);
  }

  /** Not retried after an ambiguous failure. */
  create(body: SshKeyCreate, opts?: RequestOptions): Promise<SshKey> {
    return this.t.json({ method: "POST", route: this.all, body }, SshKey, opts);
  }
}
