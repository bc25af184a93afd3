import type { SshKey } from "../../api/index.ts";
import type { SshKeyRecord } from "../store/records.ts";

/** The wire view of an SSH key record. */

export function sshKeyView(k: SshKeyRecord): SshKey {
  return {
    uid: k.uid,
    name: k.name,
    public_key_raw: k.public_key_raw,
    created_at: k.created_at,
    updated_at: k.updated_at,
  };
}
