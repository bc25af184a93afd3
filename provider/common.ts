/** Helpers shared by the resource modules. */
import { isAmbiguous, isNotFound } from "../client/index.ts";
import type { Props } from "./resource.ts";

export const DEFAULT_READY_TIMEOUT_SEC = 600;

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** How long create and update wait for the wanted state (`readyTimeoutSec` input). */
export function readyTimeoutMs(inputs: Props): number {
  return ((inputs.readyTimeoutSec as number | undefined) ?? DEFAULT_READY_TIMEOUT_SEC) * 1000;
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

/** The object, or undefined when the service no longer has it (404). */
export async function unlessGone<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Deletes; an object that is already gone counts as deleted. */
export async function deleteIfPresent(remove: () => Promise<unknown>): Promise<void> {
  await unlessGone(remove);
}

/**
 * Creates an object at most once. A POST whose outcome is unknown (connection lost after the
 * request was sent, 500/502/504) is not repeated blindly: the collection is listed again, and an
 * object matching the request that was not there before the attempt is taken as the one this
 * call created.
 */
export async function createOnce<L extends { uid: string }, R extends { uid: string }>(
  list: () => AsyncIterable<L>,
  matches: (item: L) => boolean,
  create: () => Promise<R>,
): Promise<L | R> {
  const before = new Set<string>();
  for await (const item of list()) if (matches(item)) before.add(item.uid);
  try {
    return await create();
  } catch (e) {
    if (!isAmbiguous(e)) throw e;
    for await (const item of list()) if (matches(item) && !before.has(item.uid)) return item;
    throw e;
  }
}
