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

/** JavaScript's whitespace (`\\s`, what trim() and split() take), spelled out for every regex dialect. */
const SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
/** The whitespace that may part the fields of the line: no line break or other control character. */
const BLANK = "\\t \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
const B64 = "[A-Za-z0-9+/]";
/** Any canonical base64 text (with its padding). */
const B64_REST = `(?:${B64}{4})*(?:${B64}[AQgw]==|${B64}{2}[AEIMQUYcgkosw048]=)?`;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const oneOf = (values: number[]) => `[${values.map((v) => ALPHABET[v]!.replace(/[+/]/, "\\$&")).join("")}]`;

/** The canonical base64 blobs of `type` publicKeyProblem takes: they start with the encoded type. */
function blobPattern(type: string): string {
  const head = Buffer.alloc(4 + type.length);
  head.writeUInt32BE(type.length, 0);
  head.write(type, 4, "latin1");
  if (type === "ssh-ed25519") return `${head.toString("base64")}${B64}{48}`; // 51 bytes: 15 + 4 + 32
  const whole = Math.floor(head.length / 3) * 3;
  const fixed = head.subarray(0, whole).toString("base64");
  const rem = [...head.subarray(whole)];
  const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  if (rem.length === 0) return `${fixed}${B64_REST}`;
  if (rem.length === 1) {
    const [b0] = rem as [number];
    const c1 = ALPHABET[b0 >> 2];
    const c2 = oneOf(range((b0 & 3) << 4, 16));
    return `${fixed}${c1}(?:${c2}${B64}{2}${B64_REST}|${ALPHABET[(b0 & 3) << 4]}==)`;
  }
  const [b0, b1] = rem as [number, number];
  const c12 = `${ALPHABET[b0 >> 2]}${ALPHABET[((b0 & 3) << 4) | (b1 >> 4)]}`;
  const c3 = oneOf(range((b1 & 15) << 2, 4));
  return `${fixed}${c12}(?:${c3}${B64}${B64_REST}|${ALPHABET[(b1 & 15) << 2]}=)`;
}

/**
 * An OpenSSH public key line as a pattern: the rule publicKeyProblem says in words, so the
 * OpenAPI document states it (leading and trailing whitespace aside, fields parted by blanks, a
 * comment without control characters).
 */
export const SSH_PUBLIC_KEY = new RegExp(
  `^[${SPACE}]*(?:${KEY_TYPES.map((t) => `${t}[${BLANK}]+${blobPattern(t)}`).join("|")})` +
    `(?:[${BLANK}][^\\x00-\\x08\\x0a-\\x1f\\x7f]*)?[${SPACE}]*$`,
);

export const SshKeyCreate = z.strictObject({
  ...nameField,
  ssh_key: z.string().regex(SSH_PUBLIC_KEY, {
    error: (issue) =>
      publicKeyProblem(String(issue.input)) ??
      "ssh_key must be an OpenSSH public key: '<type> <base64> [comment]'",
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
