import { createHash, randomFillSync } from "node:crypto";

/** Time source of the server (ms since the epoch). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The last instant formatted, and its text: a busy server formats the same millisecond often. */
let lastMs = Number.NaN;
let lastText = "";

/** The clock's time as ISO 8601 text (ms precision, UTC). */
export function iso(clock: Clock): string {
  const ms = clock.now();
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

/** Random bytes drawn from a pool filled 4 KiB at a time (one system call per 512 UIDs). */
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString("hex", used, used + bytes);
  used += bytes;
  return hex;
}

/** An opaque UID: prefix, hyphen, 16 hex digits. */
export function newUid(prefix: string): string {
  return `${prefix}-${randomHex(8)}`;
}

/** A short revision string (7 hex digits), new on every deployment. */
export function newRevision(): string {
  return randomHex(4).slice(0, 7);
}

export function hash32(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
