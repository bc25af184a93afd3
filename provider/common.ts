/** Helpers shared by the resource modules. */
import { isAmbiguous, isNotFound, withRetryBudget } from "../client/index.ts";
import type { CheckFailure, Context, Props, ResourceModule } from "./resource.ts";

export const DEFAULT_READY_TIMEOUT_SEC = 600;

/**
 * How far the service's clock may be behind ours when a lost create is looked for: objects
 * created up to this long before the attempt started still count as made by it.
 */
export const CLOCK_SKEW_MS = 1_000;

/** Attempts of a create whose failures the lookup shows made nothing. */
export const CREATE_ATTEMPTS = 5;

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * How long an operation waits for the wanted state: the program's customTimeouts when the front
 * end passes them, else the `readyTimeoutSec` input (default 600 s).
 */
export function readyTimeoutMs(ctx: Pick<Context, "timeoutMs">, inputs: Props): number {
  if (ctx.timeoutMs !== undefined && ctx.timeoutMs > 0) return ctx.timeoutMs;
  return ((inputs.readyTimeoutSec as number | undefined) ?? DEFAULT_READY_TIMEOUT_SEC) * 1000;
}

/** Options for a waiter under the operation's timeout and cancellation. */
export function waitOptions(ctx: Context, inputs: Props): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs: readyTimeoutMs(ctx, inputs), signal: ctx.signal };
}

/**
 * The module with every operation run under a retry budget ending at its deadline, so that
 * rate limiting and unavailability are waited out within the user's timeout.
 */
export function withBudget(m: ResourceModule): ResourceModule {
  const run = <T>(ctx: Context, inputs: Props, fn: () => Promise<T>) =>
    withRetryBudget({ deadline: Date.now() + readyTimeoutMs(ctx, inputs), signal: ctx.signal }, fn);
  return {
    ...m,
    create: (ctx, inputs) => run(ctx, inputs, () => m.create(ctx, inputs)),
    read: (ctx, id, olds) => run(ctx, olds, () => m.read(ctx, id, olds)),
    update: (ctx, id, olds, news) => run(ctx, news, () => m.update(ctx, id, olds, news)),
    delete: (ctx, id, olds) => run(ctx, olds, () => m.delete(ctx, id, olds)),
  };
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

/** One failure per property: the first reason given for it. */
export function onePerProperty(failures: CheckFailure[]): CheckFailure[] {
  const seen = new Set<string>();
  return failures.filter((f) => !seen.has(f.property) && seen.add(f.property));
}

/** A read with no previous name is a lookup (`get`, import): it fills every property. */
export function isLookup(olds: Props): boolean {
  return olds.name === undefined;
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

/** ISO timestamp at or after `since` (epoch ms). */
export function createdSince(createdAt: string | undefined, since: number): boolean {
  return createdAt !== undefined && Date.parse(createdAt) >= since;
}

export interface CreateOnceSpec {
  /** What is created, for messages ("workload web"). */
  what: string;
  /** Sends the create request. */
  create: () => Promise<{ uid: string }>;
  /**
   * The objects that match the request in full (every field it sent) and were created at or
   * after `since` (epoch ms): the candidates for the object a lost create made.
   */
  find: (since: number) => Promise<{ uid: string }[]>;
  log?: (message: string) => void;
}

/**
 * Creates an object at most once, without listing anything unless a create fails ambiguously
 * (connection lost after the request was sent, 500/502/504). Then the objects matching the
 * whole request and created since the attempt began are looked up: exactly one is the object
 * this call made; none means nothing was made and the create is sent again (up to
 * CREATE_ATTEMPTS times); more than one cannot be told apart and is reported, naming them.
 */
export async function createOnce(spec: CreateOnceSpec): Promise<{ uid: string }> {
  for (let attempt = 1; ; attempt++) {
    const started = Date.now() - CLOCK_SKEW_MS;
    try {
      return await spec.create();
    } catch (e) {
      if (!isAmbiguous(e)) throw e;
      const found = await spec.find(started);
      if (found.length === 1) {
        spec.log?.(
          `${spec.what}: the create's answer was lost (${messageOf(e)}); found it as ${found[0]!.uid}`,
        );
        return found[0]!;
      }
      if (found.length > 1) {
        throw new Error(
          `${spec.what}: the outcome of the create is unknown (${messageOf(e)}) and ${found.length} identical objects were created since it began (${found.map((f) => f.uid).join(", ")}); adopt the right one with adoptUid and delete the others`,
        );
      }
      if (attempt >= CREATE_ATTEMPTS) throw e;
      spec.log?.(`${spec.what}: the create failed (${messageOf(e)}) and made nothing; sending it again`);
    }
  }
}

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) if (keep(item)) out.push(item);
  return out;
}
