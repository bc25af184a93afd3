import type { PageQuery, SshKeyCreate, SshKeyPatch } from "../api/index.ts";
import { ApiError } from "./http/errors.ts";
import { paginate, type PageResult } from "./http/io.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { SshKeyRecord } from "./records.ts";
import { newUid } from "./util.ts";
import { isLive } from "./workload-checks.ts";

/** SSH keys (spec 4.6). Delete of a key a live workload uses is refused (409 SSH_KEY_IN_USE). */
export class SshKeyService {
  private readonly lc: Lifecycle;

  constructor(lc: Lifecycle) {
    this.lc = lc;
  }

  private get store() {
    return this.lc.store;
  }

  /** The org's SSH key or 404 SSH_KEY_NOT_FOUND. */
  get(org: string, uid: string): SshKeyRecord {
    const k = this.store.sshKeys.getIn(org, uid);
    if (!k) throw new ApiError("SSH_KEY_NOT_FOUND", `SSH key ${uid} not found`);
    return k;
  }

  create(org: string, body: SshKeyCreate): SshKeyRecord {
    const now = this.lc.now();
    const k: SshKeyRecord = {
      uid: newUid("key"),
      org,
      name: body.name,
      public_key_raw: body.ssh_key.trim(),
      created_at: now,
      updated_at: now,
    };
    this.store.sshKeys.put(k);
    return k;
  }

  list(org: string, q: PageQuery): PageResult<SshKeyRecord> {
    return paginate(this.store.sshKeys.list(org), q, undefined, undefined, (uid) =>
      this.store.sshKeys.seqOf(uid),
    );
  }

  /** Renames the key (the only field a PATCH changes; the public key is immutable). */
  update(k: SshKeyRecord, patch: SshKeyPatch): SshKeyRecord {
    if (patch.name !== k.name) {
      k.name = patch.name;
      k.updated_at = this.lc.now();
      this.store.sshKeys.put(k);
    }
    return k;
  }

  delete(org: string, uid: string): void {
    const k = this.get(org, uid);
    const users = this.store.workloads.list(org).filter((w) => isLive(w) && w.ssh_keys.includes(k.uid));
    if (users.length) {
      throw new ApiError(
        "SSH_KEY_IN_USE",
        `SSH key ${k.uid} is attached to workload ${users.map((w) => w.uid).join(", ")}: detach it first`,
      );
    }
    this.store.sshKeys.remove(k.uid);
  }
}
