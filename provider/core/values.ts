/** Small helpers on property bags and on objects the service may no longer have. */
import { isNotFound } from "../../client/errors.ts";
import type { CheckFailure, Props } from "./types.ts";

/** The keys of `props` that are set, in `keys` order. */
export function pick(props: Props, keys: readonly string[]): Props {
  const out: Props = {};
  for (const k of keys) if (props[k] !== undefined) out[k] = props[k];
  return out;
}

/** Drops undefined and null members (the engine stores neither). */
export function compact(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([, v]) => v !== undefined && v !== null));
}

/** One failure per property: the first reason given for it. */
export function onePerProperty(failures: CheckFailure[]): CheckFailure[] {
  const seen = new Set<string>();
  return failures.filter((f) => !seen.has(f.property) && seen.add(f.property));
}

/** The object, or undefined when the service no longer has it (404). */
export async function unlessGone<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
