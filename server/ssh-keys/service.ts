import { type SshKeyPatch, type SshKeyCreate } from "../../api/index.ts";
import { rename, ResourceService } from "../common/resource-service.ts";
import type { ServiceDeps } from "../common/service-deps.ts";
import type { SshKeyRecord } from "../store/records.ts";
import { newUid } from "../common/util.ts";
import { refuseWhileUsed } from "../workloads/checks.ts";

/**
 * SSH keys (spec 4.6). PATCH renames a key (its public key is immutable). Delete of a key a live
 * workload uses is refused (409 SSH_KEY_IN_USE).
 */
export class SshKeyService extends ResourceService<SshKeyRecord, SshKeyPatch> {
  constructor(deps: ServiceDeps) {
    super(deps, deps.store.sshKeys, {
      name: "ssh-keys",
      noun: "SSH key",
      notFound: "SSH_KEY_NOT_FOUND",
      apply: rename,
      deletable: (k) =>
        refuseWhileUsed(
          "SSH_KEY_IN_USE",
          `SSH key ${k.uid}`,
          deps.store.workloads.list(k.org).filter((w) => w.ssh_keys.includes(k.uid)),
          "detach it first",
        ),
    });
  }

  create(org: string, body: SshKeyCreate): SshKeyRecord {
    const now = this.now();
    const k: SshKeyRecord = {
      uid: newUid("key"),
      org,
      name: body.name,
      public_key_raw: body.ssh_key.trim(),
      created_at: now,
      updated_at: now,
    };
    this.docs.put(k);
    return k;
  }
}
