/**
 * The rate gate: one place every request of a process to one service and org passes through
 * before it is sent, so that the requests wait together instead of each finding a rate limit on
 * its own. Three things decide when a request may go:
 *
 * - **A pause.** A 429 pauses every request of the gate until its `Retry-After` (else its
 *   `RateLimit-Reset`, else 1 s) has passed: one caller is told to wait, all wait with it.
 * - **A window of requests in flight**, adapted additively-increase / multiplicatively-decrease:
 *   a 429 halves it (once for the requests sent before the previous halving: one burst of 429s
 *   is one signal), each answer that is not a 429 or a 5xx widens it by 1/window, from 1 up to
 *   `maxInFlight` (default 64). One request goes alone until the first answer (which tells
 *   whether and how the service limits); then the window is 16 and, until the first 429, it
 *   widens by 1 per answer (a slow start: no burst against an unknown limit, and an unlimited
 *   service has the whole window after a few dozen answers).
 * - **Token buckets.** `maxRequestsPerSecond` caps the rate from the start (burst: the rate
 *   rounded up). And when the service says how much of its own limit is left (`RateLimit-Limit`,
 *   `RateLimit-Remaining`, `RateLimit-Reset` on its answers), the gate keeps a copy of the
 *   service's bucket, which never holds more than the service's: its size is `RateLimit-Limit`,
 *   its refill rate the largest `(limit - remaining - 1) / reset` seen (never above the
 *   service's real rate: `reset` is rounded up), and its tokens, one less for each request let
 *   through, are raised to what an answer's `RateLimit-Remaining` shows less every request the
 *   service may have taken since (those still unanswered, and those answered while it was out),
 *   when that is more and the request was sent after every request answered so far (an older
 *   answer arriving late is stale); a 429 sets them to
 *   what it shows, whatever it is (another process may share the limit). A request waits for a
 *   token of each bucket, so a stack under a limit spends its time waiting for tokens, not
 *   collecting 429s. An answer without those headers (the limit was lifted) drops the copy.
 *
 * Requests wait in order of arrival; polls (waiters) go after every other waiting request, so
 * that under a limit the work that moves things forward goes first. A waiting request leaves the
 * queue when its signal aborts. The clock is injectable, for tests.
 *
 * One gate per process and service: `sharedRateGate(baseUrl, org)` keeps them on `globalThis`,
 * so every client of the process (and every copy of this module, bundled or not) shares it.
 */
import { parseRetryAfter } from "./retry.ts";

export interface GateClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: GateClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface RateGateOptions {
  /** Caps the rate from the start (requests a second; burst: the rate rounded up). Unset: no cap. */
  maxRequestsPerSecond?: number;
  /** The largest window of requests in flight, where it starts (default 64). */
  maxInFlight?: number;
  /** The longest pause a 429 causes, in ms (default 60 000). */
  maxPauseMs?: number;
  clock?: GateClock;
}

/** `poll`: a waiter's poll, which goes after every other waiting request. */
export type GatePriority = "normal" | "poll";

/** What came back for a request: its status and headers, or nothing (no HTTP answer). */
export interface GateOutcome {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
}

export interface GatePermit {
  /** Says what came back; the first call frees the request's place, later calls do nothing. */
  release(outcome?: GateOutcome): void;
}

/** Counters, for tests and benchmarks. */
export interface GateStats {
  /** Requests let through. */
  sent: number;
  /** 429s reported. */
  rateLimited: number;
  /** Pauses started by a 429. */
  pauses: number;
  inFlight: number;
  waiting: number;
  /** The window of requests in flight, rounded down. */
  window: number;
  /** The refill rate learned from the service's headers (requests a second), if any. */
  learnedRate?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 64;
/** The window the gate starts with (at most `maxInFlight`). */
export const INITIAL_WINDOW = 16;
const DEFAULT_PAUSE_MS = 1_000;

class Bucket {
  rate: number;
  size: number;
  tokens: number;
  #at: number;
  constructor(rate: number, size: number, now: number) {
    this.rate = rate;
    this.size = size;
    this.tokens = size;
    this.#at = now;
  }
  refill(now: number): void {
    if (now > this.#at)
      this.tokens = Math.min(this.size, this.tokens + ((now - this.#at) / 1000) * this.rate);
    this.#at = now;
  }
  set(tokens: number, now: number): void {
    this.tokens = Math.min(this.size, tokens);
    this.#at = now;
  }
  /** Ms until a token is there: 0 now, Infinity when it never refills. */
  waitMs(now: number): number {
    this.refill(now);
    if (this.tokens >= 1) return 0;
    return this.rate > 0 ? Math.ceil(((1 - this.tokens) / this.rate) * 1000) : Infinity;
  }
}

interface Waiter {
  resolve(p: GatePermit): void;
  reject(e: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

function header(h: GateOutcome["headers"], name: string): number | undefined {
  const v = h?.[name];
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(s)) return undefined;
  return Number(s);
}

export class RateGate {
  readonly #clock: GateClock;
  readonly #maxInFlight: number;
  readonly #maxPauseMs: number;
  #window: number;
  /** Until the first 429: the window widens by one per answer. */
  #slowStart = true;
  /** Until the first answer: one request at a time. */
  #probing = true;
  /** Halvings so far: a 429 of a request sent before the last one does not halve again. */
  #epoch = 0;
  #pausedUntil = 0;
  #cap: Bucket | undefined;
  /** The copy of the service's bucket, while its answers carry RateLimit-* headers. */
  #service: Bucket | undefined;
  /** Requests in flight. */
  #inFlight = 0;
  /** Requests let through so far, numbering them in the order they were sent. */
  #seq = 0;
  /** The number of the latest-sent request answered so far with RateLimit-* headers. */
  #newestAnswered = 0;
  /** Answers received so far (with a status). */
  #answers = 0;
  readonly #queue: Waiter[] = [];
  readonly #polls: Waiter[] = [];
  #timer: unknown;
  #timerAt = Infinity;
  #sent = 0;
  #rateLimited = 0;
  #pauses = 0;

  constructor(opts: RateGateOptions = {}) {
    this.#clock = opts.clock ?? SYSTEM_CLOCK;
    this.#maxInFlight = Math.max(1, opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    this.#maxPauseMs = opts.maxPauseMs ?? 60_000;
    this.#window = Math.min(INITIAL_WINDOW, this.#maxInFlight);
    this.setMaxRequestsPerSecond(opts.maxRequestsPerSecond);
  }

  /** Sets (or with undefined lifts) the cap on the rate; the bucket starts full. */
  setMaxRequestsPerSecond(rps: number | undefined): void {
    if (rps !== undefined && !(rps > 0 && Number.isFinite(rps)))
      throw new RangeError(`maxRequestsPerSecond must be a positive number (got ${rps})`);
    if (rps === this.#cap?.rate) return;
    this.#cap =
      rps === undefined ? undefined : new Bucket(rps, Math.max(1, Math.ceil(rps)), this.#clock.now());
    this.#pump();
  }

  get maxRequestsPerSecond(): number | undefined {
    return this.#cap?.rate;
  }

  stats(): GateStats {
    return {
      sent: this.#sent,
      rateLimited: this.#rateLimited,
      pauses: this.#pauses,
      inFlight: this.#inFlight,
      waiting: this.#queue.length + this.#polls.length,
      window: Math.floor(this.#window),
      ...(this.#service ? { learnedRate: this.#service.rate } : {}),
    };
  }

  /** Waits for the request's turn; rejects with the signal's reason when it aborts first. */
  acquire(opts: { signal?: AbortSignal; priority?: GatePriority } = {}): Promise<GatePermit> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<GatePermit>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      const queue = opts.priority === "poll" ? this.#polls : this.#queue;
      if (signal) {
        waiter.onAbort = () => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(signal.reason);
          this.#pump();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      queue.push(waiter);
      this.#pump();
    });
  }

  /** Lets waiting requests through while the pause, the window and the buckets allow. */
  #pump(): void {
    for (;;) {
      const queue = this.#queue.length ? this.#queue : this.#polls;
      if (!queue.length) return;
      const now = this.#clock.now();
      if (now < this.#pausedUntil) return this.#wake(this.#pausedUntil - now);
      if (this.#inFlight >= (this.#probing ? 1 : Math.floor(this.#window))) return;
      const capWait = this.#cap?.waitMs(now) ?? 0;
      let serviceWait = this.#service?.waitMs(now) ?? 0;
      // A copy whose refill is not known yet: one request at a time finds out.
      if (serviceWait === Infinity) {
        if (this.#inFlight > 0) return;
        serviceWait = 0;
      }
      const wait = Math.max(capWait, serviceWait);
      if (wait > 0) return this.#wake(wait);
      const waiter = queue.shift()!;
      if (waiter.onAbort) waiter.signal!.removeEventListener("abort", waiter.onAbort);
      if (this.#cap) this.#cap.tokens -= 1;
      if (this.#service) this.#service.tokens -= 1;
      waiter.resolve(this.#permit());
    }
  }

  /** Pumps again in `ms` (a sooner wake-up already set stands). */
  #wake(ms: number): void {
    const at = this.#clock.now() + ms;
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#pump();
    }, ms);
  }

  #permit(): GatePermit {
    const epoch = this.#epoch;
    const seq = ++this.#seq;
    const answersBefore = this.#answers;
    this.#inFlight++;
    this.#sent++;
    let done = false;
    return {
      release: (outcome = {}) => {
        if (done) return;
        done = true;
        this.#inFlight--;
        this.#answer(seq, epoch, answersBefore, outcome);
        this.#pump();
      },
    };
  }

  #answer(seq: number, epoch: number, answersBefore: number, { status, headers }: GateOutcome): void {
    const now = this.#clock.now();
    if (status !== undefined) this.#probing = false;
    if (status === 429) {
      this.#rateLimited++;
      const reset = header(headers, "ratelimit-reset");
      const waitMs = Math.min(
        parseRetryAfter(headers?.["retry-after"], now) ??
          (reset !== undefined && reset > 0 ? reset * 1000 : DEFAULT_PAUSE_MS),
        this.#maxPauseMs,
      );
      if (now + waitMs > this.#pausedUntil) {
        this.#pausedUntil = now + waitMs;
        this.#pauses++;
      }
      if (epoch === this.#epoch) {
        this.#window = Math.max(1, this.#window / 2);
        this.#epoch++;
        this.#slowStart = false;
      }
    } else if (status !== undefined && status < 500) {
      this.#window = Math.min(this.#maxInFlight, this.#window + (this.#slowStart ? 1 : 1 / this.#window));
    }
    if (status === undefined) return;
    // Requests answered while this one was out, sent before it: the service may have taken them
    // after it (their answers are in, so they are not counted among those in flight).
    const answeredMeanwhile = this.#answers - answersBefore;
    this.#answers++;
    this.#learn(seq, status, headers, answeredMeanwhile, now);
  }

  /** Keeps the copy of the service's bucket in step with its RateLimit-* headers. */
  #learn(
    seq: number,
    status: number,
    headers: GateOutcome["headers"],
    answeredMeanwhile: number,
    now: number,
  ): void {
    const size = header(headers, "ratelimit-limit");
    const remaining = header(headers, "ratelimit-remaining");
    const reset = header(headers, "ratelimit-reset");
    if (size === undefined || remaining === undefined) {
      // A success without them: the service no longer limits (errors may come from elsewhere).
      if (status < 300) this.#service = undefined;
      return;
    }
    // What the service had after this request, less one for each request it may have taken
    // since: those still unanswered, and those answered while this one was out (an answer to a
    // request sent after this one makes this answer stale, below): never more than it has.
    const floor = remaining - this.#inFlight - answeredMeanwhile;
    const fresh = !this.#service;
    const b = (this.#service ??= new Bucket(0, size, now));
    b.refill(now);
    b.size = size;
    // Only the answer to the latest-sent request answered so far is news: an answer to an older
    // one arriving late (a slow request) shows tokens that requests answered since have taken.
    const newest = seq > this.#newestAnswered;
    if (newest) this.#newestAnswered = seq;
    if (fresh || status === 429) b.set(floor, now);
    else if (newest && floor > b.tokens) b.set(floor, now);
    if (reset !== undefined && reset > 0) {
      const rate = (size - remaining - 1) / reset;
      if (status === 429 && rate > 0) b.rate = Math.min(b.rate || rate, rate);
      else if (rate > b.rate) b.rate = rate;
    }
  }
}

const GATES = Symbol.for("pulumi-cws.rate-gates");
type Registry = Map<string, RateGate>;

/**
 * The process's gate for requests to `baseUrl` as `org`, made on first use. `maxRequestsPerSecond`
 * (when given, or given as undefined) sets its cap: the last client made decides.
 */
export function sharedRateGate(
  baseUrl: string,
  org: string,
  opts: { maxRequestsPerSecond?: number } = {},
): RateGate {
  const g = globalThis as { [GATES]?: Registry };
  const registry = (g[GATES] ??= new Map());
  const key = `${baseUrl.replace(/\/+$/, "")} ${org}`;
  let gate = registry.get(key);
  if (!gate) registry.set(key, (gate = new RateGate(opts)));
  else gate.setMaxRequestsPerSecond(opts.maxRequestsPerSecond);
  return gate;
}
