/** `client.sshKeys`: spec section 4.6. */
import { SSH_KEYS } from "../api/endpoints/index.ts";
import type { PageQuery, SshKey, SshKeyCreate, SshKeyPatch } from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { ResourceClient } from "./resource-client.ts";

export class SshKeys extends ResourceClient<SshKey, PageQuery, SshKeyPatch> {
  constructor(transport: Transport) {
    super(transport, SSH_KEYS);
  }

  /** Not retried after an ambiguous failure. */
  create(body: SshKeyCreate, opts?: RequestOptions): Promise<SshKey> {
    return this.t.json({ endpoint: SSH_KEYS.create, body }, opts);
  }
}
