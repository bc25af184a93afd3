/**
 * The `timeouts` block every resource takes (`create = "20m"`, `update`, `read`, `delete`), in
 * Go's duration syntax as other providers take it ("90s", "1h30m"). A set timeout bounds the
 * operation's waits and retries as customTimeouts do for the Pulumi front ends.
 */
// Timeouts are read as the SDK classes read customTimeouts (Go duration syntax).
import { durationMs } from "../../sdk/duration.ts";
import { DURATION_EXAMPLES } from "../core/timeouts.ts";
import type { MsgValue, TfObject } from "./msgpack.ts";
import { TIMEOUT_KEYS } from "./tf-schema.ts";

export type TimeoutKey = (typeof TIMEOUT_KEYS)[number];

/** Failures of a timeouts block: each set value must be a positive duration. */
export function checkTimeouts(block: MsgValue): { property: string; reason: string }[] {
  if (!block || typeof block !== "object" || Array.isArray(block)) return [];
  const out: { property: string; reason: string }[] = [];
  for (const k of TIMEOUT_KEYS) {
    const v = (block as Record<string, MsgValue>)[k];
    if (typeof v !== "string") continue;
    const ms = durationMs(v);
    if (!ms || ms <= 0)
      out.push({
        property: `timeouts.${k}`,
        reason: `timeouts.${k} must be a positive duration such as ${DURATION_EXAMPLES} (got "${v}")`,
      });
  }
  return out;
}

/** The operation's timeout in ms from a timeouts block, when set. */
export function timeoutMs(block: MsgValue, key: TimeoutKey): number | undefined {
  if (!block || typeof block !== "object" || Array.isArray(block)) return undefined;
  const v = (block as Record<string, MsgValue>)[key];
  return typeof v === "string" ? durationMs(v) : undefined;
}

/** The timeouts block of a state, every key present (null: not set). */
export function timeoutsOf(state: TfObject): MsgValue {
  const t = state.timeouts;
  if (!t || typeof t !== "object" || Array.isArray(t)) return null;
  return {
    create: t.create ?? null,
    read: t.read ?? null,
    update: t.update ?? null,
    delete: t.delete ?? null,
  };
}
