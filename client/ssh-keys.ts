/** `client.sshKeys`: spec section 4.6. */
import {
  SshKey,
  SshKeyList,
  type Page,
  type PageQuery,
  type SshKeyCreate,
  type SshKeyPatch,
} from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { paginate } from "./pagination.ts";

const ALL = "/orgs/{org}/ssh-keys";
const ONE = `${ALL}/{uid}`;

export class SshKeys {
  #t: Transport;
  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** Not retried after an ambiguous failure. */
  create(body: SshKeyCreate, opts?: RequestOptions): Promise<SshKey> {
    return this.#t.json({ method: "POST", route: ALL, body }, SshKey, opts);
  }

  list(query: PageQuery = {}, opts?: RequestOptions): Promise<Page<SshKey>> {
    return this.#t.json({ method: "GET", route: ALL, query }, SshKeyList, opts);
  }

  iterate(
    query: Omit<PageQuery, "cursor"> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<SshKey, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }, opts));
  }

  get(uid: string, opts?: RequestOptions): Promise<SshKey> {
    return this.#t.json({ method: "GET", route: ONE, params: { uid } }, SshKey, opts);
  }

  update(uid: string, patch: SshKeyPatch, opts?: RequestOptions): Promise<SshKey> {
    return this.#t.json({ method: "PATCH", route: ONE, params: { uid }, body: patch }, SshKey, opts);
  }

  delete(uid: string, opts?: RequestOptions): Promise<void> {
    return this.#t.empty({ method: "DELETE", route: ONE, params: { uid } }, opts);
  }
}
