/**
 * The retry policy of the client, in one place.
 *
 * What is retried (up to `maxRetries` times, default 3, with jittered exponential backoff):
 *
 * | Failure                                              | Safe / idempotent operation | Create and other non-idempotent POST |
 * |------------------------------------------------------|-----------------------------|--------------------------------------|
 * | 429 (honours Retry-After)                            | retried                     | retried                              |
 * | 503 (honours Retry-After)                            | retried                     | retried                              |
 * | connection refused / DNS failure / connect timeout   | retried, within the window  | retried, within the window           |
 * | TLS failure (untrusted certificate, plain HTTP)      | not retried                 | not retried                          |
 * | 502, 504                                             | retried                     | NOT retried                          |
 * | connection reset or timeout after the request was sent | retried                   | NOT retried                          |
 * | 500, any other 4xx, invalid response                 | not retried                 | not retried                          |
 *
 * Why: a 429 or 503 means the service refused the request before acting on it, and a refused
 * connection means it never saw it, so repeating is harmless for every operation. A reset
 * connection, a timeout or a gateway error (502/504) is ambiguous: the service may have
 * carried the request out. Repeating a GET, PUT, PATCH (which sets fields) or DELETE is then
 * still harmless; repeating a create could make a second resource, and repeating a state
 * transition (deploy, suspend, reboot, freeze, thaw, fork, publish, exec, terminal creation)
 * could act twice or turn a success into a confusing 409. Those surface the error instead
 * (`isAmbiguous(e)` is true); callers look the resource up (by name, or by reading its state)
 * before trying again. A 500 is not retried: it is a bug or a deterministic failure that a
 * repeat would only hide.
 *
 * POSTs that are explicitly idempotent and are retried like a GET: `workloads.verify` (a pure
 * check) and `sandboxes.createTicket` (minting a spare single-use ticket costs nothing; it expires).
 *
 * A retried DELETE can answer 404 when the first attempt succeeded but its answer was lost:
 * treat `isNotFound` after a delete as success.
 *
 * A retry budget (`withRetryBudget({ deadline })`) replaces the count for everything run inside
 * it: a retryable failure is retried, with the same backoff, for as long as the next attempt
 * would start before the deadline, so that a burst of 429s or 503s is waited out within the
 * caller's own timeout rather than within a fixed number of attempts. The budget's signal stops
 * the waiting at once. What is retryable does not change.
 *
 * A service that cannot be reached at all (connection refused, unknown host, connect timeout) is
 * retried for the client's unreachable window (default 20 s), whatever the count, within the budget;
 * a TLS failure is not retried. Both end in `CwsUnreachableError`, which names the endpoint, the
 * cause and the setting to check (reach.ts).
 *
 * Retries happen only before a response is read; a stream (log follow, exec) that breaks after
 * data arrived is not resumed. Waiters (`waitForStatus`) are separate: they poll on top of this.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { CwsApiError, CwsConnectionError, CwsRateLimitError, CwsServerError } from "./errors.ts";
import { CwsUnreachableError, type Reachability, type UnreachableRetry } from "./reach.ts";

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables). */
  maxRetries: number;
  /** First backoff step in ms (default 200). */
  baseDelayMs: number;
  /** Largest backoff step in ms (default 5000). */
  maxDelayMs: number;
  /** Largest Retry-After honoured, in ms (default 60 000); longer values are capped to it. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
};

/** What the hook receives before each retry sleep. Never includes headers or bodies. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  method: string;
  route: string;
  path: string;
  /** HTTP status of the failed attempt, or undefined for a connection failure. */
  status?: number;
  reason?: string;
  error: Error;
  /** Set when the attempt could not reach the service: where, why, and how long the client keeps trying (reach.ts). */
  unreachable?: UnreachableRetry;
}

/**
 * Whether `error` may be retried for an operation. `idempotent` is true for GET, HEAD, PUT,
 * PATCH, DELETE and the POSTs marked idempotent above.
 */
export function isRetryable(error: unknown, idempotent: boolean): boolean {
  if (error instanceof CwsRateLimitError) return true;
  if (error instanceof CwsServerError) {
    if (error.status === 503) return true;
    if (error.status === 502 || error.status === 504) return idempotent;
    return false;
  }
  if (error instanceof CwsApiError) return false;
  if (error instanceof CwsUnreachableError) return false;
  if (error instanceof CwsConnectionError) {
    if (error.code === "CLIENT_CLOSED") return false;
    return !error.sent || idempotent;
  }
  return false;
}

/** Parses a Retry-After header value (delta seconds or an HTTP date) into ms; undefined when absent or invalid. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Delay before retry number `attempt` (1-based): the service's Retry-After when it gave one
 * (capped at `maxRetryAfterMs`), otherwise base * 2^(attempt-1) capped at `maxDelayMs`, minus
 * up to 25% jitter so that many clients do not retry in lockstep.
 */
export function retryDelayMs(
  attempt: number,
  error: unknown,
  opts: RetryOptions = DEFAULT_RETRY,
  random = Math.random,
): number {
  const retryAfter =
    error instanceof CwsRateLimitError || error instanceof CwsServerError ? error.retryAfterMs : undefined;
  if (retryAfter !== undefined) return Math.min(retryAfter, opts.maxRetryAfterMs);
  const step = Math.min(opts.baseDelayMs * 2 ** (attempt - 1), opts.maxDelayMs);
  return Math.round(step * (1 - random() * 0.25));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export interface RetryContext {
  method: string;
  route: string;
  path: string;
  idempotent: boolean;
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  /**
   * The request passes a rate gate (rate-gate.ts), which pauses every request after a 429: the
   * retry of a 429 then waits there, for the gate's pause, rather than sleeping on its own.
   */
  gated?: boolean;
  /** The client's view of whether the service answers: bounds the retries of a service it cannot reach (reach.ts). */
  reach?: Reachability;
}

/** How long requests made inside `withRetryBudget` keep retrying. */
export interface RetryBudget {
  /** Epoch ms: retryable failures are retried until the next attempt would start after it. */
  deadline: number;
  /** Stops retry sleeps at once (the request then rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Called before each retry sleep of a request inside the budget (for the operation's status line). */
  onRetry?: (info: RetryInfo) => void;
}

const budgets = new AsyncLocalStorage<RetryBudget>();

/** The retry budget the calling code runs under, if any. */
export function currentRetryBudget(): RetryBudget | undefined {
  return budgets.getStore();
}

/** Runs `fn` with every request it makes (directly or through awaited calls) under `budget`. */
export function withRetryBudget<T>(budget: RetryBudget, fn: () => Promise<T>): Promise<T> {
  return budgets.run(budget, fn);
}

/**
 * Runs `attempt` and repeats it while the policy allows. `attempt` throws classified client
 * errors; it gets the signal that stops waiting (the request's, else the retry budget's).
 */
export async function withRetries<T>(
  run: (signal: AbortSignal | undefined) => Promise<T>,
  ctx: RetryContext,
  opts: RetryOptions = DEFAULT_RETRY,
): Promise<T> {
  const budget = budgets.getStore();
  const signal = ctx.signal ?? budget?.signal;
  for (let retry = 0; ; retry++) {
    try {
      return await run(signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isRetryable(error, ctx.idempotent)) throw ctx.reach?.final(error) ?? error;
      const backoffMs = retryDelayMs(retry + 1, error, opts);
      const reach = ctx.reach?.judge(error, backoffMs);
      if (reach && "fail" in reach) throw reach.fail;
      const delayMs = reach ? reach.delayMs : backoffMs;
      // A service that cannot be reached is retried for its window, whatever the count.
      if (budget ? Date.now() + delayMs >= budget.deadline : !reach && retry >= opts.maxRetries)
        throw ctx.reach?.final(error) ?? error;
      const info: RetryInfo = {
        attempt: retry + 1,
        delayMs,
        method: ctx.method,
        route: ctx.route,
        path: ctx.path,
        status: error instanceof CwsApiError ? error.status : undefined,
        reason: error instanceof CwsApiError ? error.reason : undefined,
        error: error as Error,
        ...(reach ? { unreachable: reach.retry } : {}),
      };
      ctx.onRetry?.(info);
      budget?.onRetry?.(info);
      if (!(ctx.gated && error instanceof CwsRateLimitError)) await sleep(delayMs, signal);
    }
  }
}
