/** SshKey: a public key that workloads reference. Update: name. Replace: publicKey. */
import { NAME_RULES, SshKey, SshKeyCreate } from "../../../api/index.ts";
import { z } from "zod";
import {
  ADOPT_UID,
  TIMESTAMPS,
  bodyInputsOf,
  renamesOf,
  uidOutput,
  type Definition,
  nameInput,
} from "../../core/definition.ts";
import { pick } from "../../core/values.ts";
import { contractFailures } from "../../core/wire.ts";

/** Key type and data; the comment and surrounding whitespace are not part of the key's identity. */
export const keyIdentity = (v: unknown) =>
  typeof v === "string" ? v.trim().split(/\s+/).slice(0, 2).join(" ") : v;

export const definition: Definition = {
  name: "SshKey",
  what: "SSH key",
  description: "An SSH public key that workloads and sandboxes reference by UID.",
  inputs: {
    name: nameInput("key", NAME_RULES.object),
    // The service takes the key as ssh_key and returns it as public_key_raw. The resource has one
    // name for both, which does not read like the key UIDs that a workload's `sshKeys` hold.
    publicKey: {
      type: z.string(),
      description:
        "The public key (ssh-ed25519, ssh-rsa or ecdsa-sha2-*); the comment after it is ignored when comparing.",
      change: "replace",
      required: true,
      normalise: keyIdentity,
      wire: { body: "ssh_key", record: "public_key_raw" },
    },
    adoptUid: ADOPT_UID,
  },
  outputs: {
    uid: uidOutput("key"),
    publicKeyRaw: { type: SshKey.shape.public_key_raw, description: "The key as the service stores it." },
    ...TIMESTAMPS,
  },
  validate: (_olds, news) =>
    contractFailures(SshKeyCreate, pick(news, bodyInputsOf(definition)), renamesOf(definition)),
  notes: `The key's comment and spacing are not part of its identity: a key read back with another comment is no change.`,
  example: {
    name: "deploy-key",
    publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx me@example",
  },
};
