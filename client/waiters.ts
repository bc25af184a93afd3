/**
 * Waiters: poll a status until it reaches a target, separate from request retries. When the
 * service says when to look again (`Retry-After` on a poll's answer, or on a 429/503), the next
 * poll goes then: no sooner, so a wait costs the service what it asks, and no later, so the
 * target is noticed as soon as the service reaches it. Otherwise polling starts at `pollMs`
 * (default 100 ms) and grows by half each round up to 2 s. Transient failures of a poll
 * (connection errors, 5xx and 429 after the request's own retries) are tolerated until the
 * deadline; any other error (404, 401, ...) ends the wait at once.
 */
import { CwsConnectionError, CwsRateLimitError, CwsServerError, CwsWaitTimeoutError } from "./errors.ts";
import { CwsUnreachableError } from "./reach.ts";
import type { RequestOptions } from "./http.ts";
import { sleep } from "./retry.ts";

export interface WaitOptions {
  /** Deadline for the whole wait, in ms. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** First polling interval in ms (default 100); it grows to at most 2 s. */
  pollMs?: number;
}

export const MAX_POLL_MS = 2_000;
/** The earliest a poll follows the previous one, whatever the service's hint. */
export const MIN_POLL_MS = 10;
/** The latest a poll waits on the service's hint (Retry-After). */
export const MAX_HINT_MS = 60_000;

export interface PollSpec<T extends { status: string }> {
  kind: string;
  uid: string;
  target: string | string[];
  /**
   * Reads the current record with the wait's signal, a timeout of at most what is left of the
   * deadline, and an `onRetryAfter` that takes the answer's Retry-After (ms), the service's hint
   * of when to poll again.
   */
  read: (opts: RequestOptions) => Promise<T>;
  /** The longest one read may take (the transport's request timeout). */
  readTimeoutMs: number;
  /** Throws when `record` shows the wait for `target` can never succeed. */
  check: (record: T, target: string[]) => void;
}

export async function pollUntil<T extends { status: string }>(
  spec: PollSpec<T>,
  opts: WaitOptions,
): Promise<T> {
  const target = Array.isArray(spec.target) ? spec.target : [spec.target];
  const deadline = Date.now() + opts.timeoutMs;
  let delay = Math.max(1, opts.pollMs ?? 100);
  let lastStatus: string | undefined;
  let lastError: unknown;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new CwsWaitTimeoutError({
        kind: spec.kind,
        uid: spec.uid,
        target,
        lastStatus,
        timeoutMs: opts.timeoutMs,
        cause: lastError,
      });
    }
    let hint: number | undefined;
    try {
      const timeoutMs = Math.min(left, spec.readTimeoutMs);
      const record = await spec.read({
        signal: opts.signal,
        timeoutMs,
        onRetryAfter: (ms) => (hint = ms),
        priority: "poll",
      });
      lastStatus = record.status;
      lastError = undefined;
      if (target.includes(lastStatus)) return record;
      spec.check(record, target);
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (e instanceof CwsUnreachableError) throw e;
      if (!(e instanceof CwsConnectionError || e instanceof CwsServerError || e instanceof CwsRateLimitError))
        throw e;
      lastError = e;
      if (e instanceof CwsServerError || e instanceof CwsRateLimitError) hint = e.retryAfterMs;
    }
    const next = hint === undefined ? delay : Math.min(Math.max(hint, MIN_POLL_MS), MAX_HINT_MS);
    const wait = Math.min(next, deadline - Date.now());
    if (wait > 0) await sleep(wait, opts.signal);
    if (hint === undefined) delay = Math.min(Math.round(delay * 1.5), MAX_POLL_MS);
  }
}
