import { createHash, randomBytes } from "node:crypto";

/** Time source of the server (ms since the epoch). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function iso(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** An opaque UID: prefix, hyphen, 16 hex digits. */
export function newUid(prefix: string): string {
  return `${prefix}-${randomBytes(8).toString("hex")}`;
}

/** A short revision string (7 hex digits), new on every deployment. */
export function newRevision(): string {
  return randomBytes(4).toString("hex").slice(0, 7);
}

export function hash32(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
