// Secrets at rest: passwords (registry_auth, vm_config, also inside template manifests) and
// API tokens are written to the database encrypted (AES-256-GCM) with a key that is not in
// the database: $CWS_SECRET_KEY (base64 of 32 bytes), else the key file (default
// <data dir>/cws.key, created 0600 with a random key). Without a data dir the key is
// random and lives in memory only.

import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import * as fs from "node:fs";

/** Keys whose string values (or arrays of strings) are secrets. */
const SECRET_KEYS = new Set(["password", "tokens"]);
/** How a secret key shows in JSON text. */
const SECRET_KEY_TEXT = [...SECRET_KEYS].map((k) => `"${k}":`);
const TAG = "$cws_secret";

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("the secret key must be 32 bytes");
    this.key = key;
  }

  /** The key from $CWS_SECRET_KEY, else from keyFile (created when missing), else random. */
  static open(keyFile: string | undefined): SecretBox {
    const env = process.env.CWS_SECRET_KEY;
    if (env) {
      const key = Buffer.from(env, "base64");
      if (key.length !== 32) throw new Error("CWS_SECRET_KEY must be the base64 of 32 random bytes");
      return new SecretBox(key);
    }
    if (!keyFile) return new SecretBox(randomBytes(32));
    try {
      fs.writeFileSync(keyFile, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const key = Buffer.from(fs.readFileSync(keyFile, "utf8").trim(), "base64");
    if (key.length !== 32) throw new Error(`${keyFile} must hold the base64 of 32 bytes`);
    return new SecretBox(key);
  }

  seal(text: string): { [TAG]: string } {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([c.update(text, "utf8"), c.final()]);
    return { [TAG]: Buffer.concat([iv, c.getAuthTag(), body]).toString("base64") };
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed, "base64");
    const d = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8");
    } catch {
      throw new Error(
        "cannot decrypt a secret of the database: the secret key (CWS_SECRET_KEY or the key file) is not the one it was written with",
      );
    }
  }

  /** JSON text of value with every secret sealed. */
  stringify(value: unknown): string {
    // Most documents hold no secret: JSON.stringify without a replacer is much faster, and a
    // text with no secret key in it needs nothing sealed.
    const plain = JSON.stringify(value);
    if (!SECRET_KEY_TEXT.some((k) => plain.includes(k))) return plain;
    return JSON.stringify(value, (k, v: unknown) => {
      if (!SECRET_KEYS.has(k)) return v;
      if (typeof v === "string") return this.seal(v);
      if (Array.isArray(v) && v.every((x) => typeof x === "string"))
        return v.map((x: string) => this.seal(x));
      return v;
    });
  }

  /** Parses JSON text written by stringify (plain secrets of older files pass through). */
  parse<T>(text: string): T {
    // Most texts hold no sealed secret: JSON.parse without a reviver is much faster.
    if (!text.includes(TAG)) return JSON.parse(text) as T;
    return JSON.parse(text, (_k, v: unknown) => {
      if (v && typeof v === "object" && !Array.isArray(v)) {
        const o = v as Record<string, unknown>;
        if (typeof o[TAG] === "string" && Object.keys(o).length === 1) return this.open(o[TAG]);
      }
      return v;
    }) as T;
  }

  /** Whether JSON text holds a secret in plain text (written before encryption). */
  static hasPlainSecret(text: string): boolean {
    return /"password":"|"tokens":\["/.test(text);
  }
}
