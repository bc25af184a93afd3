import { z } from "zod";
import { page, nameField, timestampFields } from "./common.ts";

const KEY_TYPES = [
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
];

/**
 * Checks an OpenSSH public key line: one line (no line break or control character, also not
 * in the comment), known type, canonical base64 blob whose embedded type matches.
 */
export function publicKeyProblem(text: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(text.trim()))
    return "ssh_key must be a single line: no line breaks or control characters (also not in the comment)";
  const parts = text.trim().split(/\s+/);
  if (parts.length < 2) return "ssh_key must be an OpenSSH public key: '<type> <base64> [comment]'";
  const [type, blob] = parts as [string, string];
  if (!KEY_TYPES.includes(type))
    return `ssh_key type must be one of ssh-ed25519, ssh-rsa, ecdsa-sha2-* (got '${type}')`;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blob) || blob.length % 4 !== 0) return "ssh_key key data must be base64";
  const raw = Buffer.from(blob, "base64");
  if (raw.toString("base64") !== blob) return "ssh_key key data must be base64 (canonical, with padding)";
  if (raw.length < 4) return "ssh_key key data is truncated";
  const len = raw.readUInt32BE(0);
  if (raw.length < 4 + len || raw.subarray(4, 4 + len).toString("latin1") !== type) {
    return `ssh_key key data does not encode a ${type} key`;
  }
  if (type === "ssh-ed25519" && raw.length !== 51)
    return "ssh_key ssh-ed25519 key data must hold a 32-byte key";
  return undefined;
}

export const SshKeyCreate = z.strictObject({
  ...nameField,
  ssh_key: z.string().superRefine((s, ctx) => {
    const problem = publicKeyProblem(s);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
});
export type SshKeyCreate = z.infer<typeof SshKeyCreate>;
export const SshKeyPatch = z.strictObject(nameField);
export type SshKeyPatch = z.infer<typeof SshKeyPatch>;

/** SSH key (spec 2.9). */
export const SshKey = z.object({
  uid: z.string(),
  name: z.string(),
  public_key_raw: z.string(),
  ...timestampFields,
});
export type SshKey = z.infer<typeof SshKey>;
export const SshKeyList = page(SshKey);
