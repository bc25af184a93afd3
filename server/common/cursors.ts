import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { ApiError } from "../http/errors.ts";

/** Where the cursor key is kept: the store's key-values (dropped by an admin reset). */
export interface KeyValues {
  kvGet<T>(key: string): T | undefined;
  kvSet(key: string, value: unknown): void;
}

/** The key-value holding the key; its value is `{ password }` so the store seals it at rest. */
const KEY_NAME = "cursor_key";
/** iv (12 bytes) + position (8 bytes, encrypted) + tag (16 bytes), base64url: 48 characters. */
const CURSOR = /^[A-Za-z0-9_-]{48}$/;

/**
 * The one answer to any cursor this server did not hand out for this list of this org: 404, as
 * for a UID that names nothing (spec 4.8 makes a cursor the UID of an item).
 */
export function invalidCursor(): ApiError {
  return new ApiError(
    "CURSOR_NOT_FOUND",
    "cursor is not a next_cursor of this list: start the walk again without a cursor",
  );
}

/**
 * Opaque list cursors. A cursor holds a position in a list (a creation position, or an event
 * id), encrypted and authenticated (AES-256-GCM) with the org and the list's name as
 * associated data: a cursor of another org or another list, a forged or altered one, and one
 * from before an admin reset (the key is dropped with the state) all fail to open, and the
 * list answers them exactly as it answers a malformed one. The position names a place, not an
 * item, so a walk goes on after the item it stopped at is deleted. The key lives in the
 * store, so cursors outlive a restart.
 */
export class Cursors {
  private readonly kv: KeyValues;

  constructor(kv: KeyValues) {
    this.kv = kv;
  }

  private key(create: boolean): Buffer | undefined {
    let hex = this.kv.kvGet<{ password: string }>(KEY_NAME)?.password;
    if (!hex && create) {
      hex = randomBytes(32).toString("hex");
      this.kv.kvSet(KEY_NAME, { password: hex });
    }
    return hex ? Buffer.from(hex, "hex") : undefined;
  }

  /** A cursor naming `position` in the list `list` of `org`. */
  issue(org: string, list: string, position: number): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key(true)!, iv);
    cipher.setAAD(Buffer.from(`${org}\n${list}`));
    const plain = Buffer.alloc(8);
    plain.writeBigUInt64BE(BigInt(position));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64url");
  }

  /** The position `cursor` names when this server issued it for `list` of `org`; else undefined. */
  position(org: string, list: string, cursor: string): number | undefined {
    if (!CURSOR.test(cursor)) return undefined;
    const key = this.key(false);
    if (!key) return undefined;
    const raw = Buffer.from(cursor, "base64url");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(`${org}\n${list}`));
      decipher.setAuthTag(raw.subarray(20));
      const plain = Buffer.concat([decipher.update(raw.subarray(12, 20)), decipher.final()]);
      return Number(plain.readBigUInt64BE());
    } catch {
      return undefined;
    }
  }
}
