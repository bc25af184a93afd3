/** Helpers shared by the resource modules. */
import { isAmbiguous, isNotFound } from "../client/index.ts";
import type { Props } from "./resource.ts";

export const DEFAULT_READY_TIMEOUT_SEC = 600;

/** The object is not on the service (any more). */
export const isGone = isNotFound;

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

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

/**
 * Creates a resource at most once. A POST whose outcome is unknown (connection lost, 5xx gateway
 * error) is not repeated blindly: the collection is listed again, and a resource with the same
 * name that was not there before the attempt is taken as the one this call created.
 */
export async function createOnce<T extends { uid: string }>(
  existing: () => Promise<Set<string>>,
  create: () => Promise<T>,
  lookup: (known: Set<string>) => Promise<T | undefined>,
): Promise<T> {
  const before = await existing();
  try {
    return await create();
  } catch (e) {
    if (!isAmbiguous(e)) throw e;
    const found = await lookup(before);
    if (found) return found;
    throw e;
  }
}

export async function uidsOf(items: AsyncIterable<{ uid: string }>): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const item of items) out.add(item.uid);
  return out;
}
