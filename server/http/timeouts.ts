/**
 * The server's own timeouts: how long it waits for a client (a request's headers, its body, the
 * next request on an idle connection) and how long a sandbox operation waits for a sandbox that
 * another operation holds. docs/reference-server.md, "Timeouts and the answer bound", says what
 * each one does and what the client gets.
 */
export interface ServerTimeouts {
  /** The request line and headers must have arrived this long after the request's first byte: else 408, then close. */
  headersMs: number;
  /** While the server reads a body, at most this long without a byte of it: else 408 (or a close once answered). */
  bodyIdleMs: number;
  /** The whole request, however it trickles in, within this: else 408, then close. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this (advertised as `Keep-Alive: timeout=`). */
  keepAliveMs: number;
  /**
   * A sandbox operation waits this long for a sandbox that another operation holds (a fork's or
   * a publish's copy, a freeze, a thaw), or that is frozen under a call in progress: then 409
   * WORKLOAD_SANDBOX_UNAVAILABLE.
   */
  sandboxWaitMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<ServerTimeouts> = {
  headersMs: 10_000,
  bodyIdleMs: 10_000,
  requestMs: 300_000,
  keepAliveMs: 65_000,
  sandboxWaitMs: 5_000,
};

/** How often the headers, body and request timeouts are checked (each fires at most this late, plus the event loop's delay). */
export const TIMEOUT_CHECK_MS = 250;

/** What the answer bound allows beyond the longest timeout: the check above, and a loaded event loop. */
export const TIMEOUT_SLACK_MS = 1_000;

/**
 * The answer bound: every request gets its status line, or its connection is closed, within this
 * long (11 s with the default timeouts), not counting the request's own work: its body arriving
 * (while bytes keep coming), an exec's command running (up to its timeout_sec), a file's bytes
 * moving to or from the sandbox, a desktop WebSocket waiting for a desktop that is still starting.
 */
export function answerBoundMs(t: ServerTimeouts): number {
  return Math.max(t.headersMs, t.bodyIdleMs, t.sandboxWaitMs) + TIMEOUT_SLACK_MS;
}

/** The timeouts of a server: the defaults, with what the options give. Throws on a bad value. */
export function resolveTimeouts(given: Partial<ServerTimeouts> | undefined): ServerTimeouts {
  const t = { ...DEFAULT_TIMEOUTS, ...given };
  for (const [k, v] of Object.entries(t)) {
    if (!Number.isInteger(v) || v < 1 || v > 3_600_000)
      throw new Error(
        `timeouts.${k} must be a whole number of milliseconds from 1 to 3600000 (got ${String(v)})`,
      );
  }
  if (t.headersMs > t.requestMs) throw new Error("timeouts.headersMs must not be above timeouts.requestMs");
  return t;
}

/** The default answer bound. */
export const ANSWER_BOUND_MS = answerBoundMs(DEFAULT_TIMEOUTS);
