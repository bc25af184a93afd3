/**
 * Per-organization request rate limits (off unless configured): a token bucket per org, `rps`
 * tokens a second into a bucket of `burst`. Refill is computed when a request takes a token
 * (no timer, no work for idle orgs), and a take is synchronous, so requests arriving together
 * are served in order and a full bucket of N lets exactly N of them through.
 *
 * The limit of an org is, first found: the one the admin API set at run time (PUT
 * /admin/orgs/{org}/rate-limit; null lifts it), the seed's `rate_limit` of the org (null: never
 * limited), the server's (`--rate-limit`, `startServer({ rateLimit })`), else none.
 */
import type { OrgRateLimit, RateLimit, RateLimitSetting } from "../../api/index.ts";
import type { Clock } from "../common/util.ts";
import { ApiError } from "./errors.ts";

/** Slack for float sums of refills (a token refilled in three thirds is a whole token). */
const EPSILON = 1e-9;

/** The limit a setting names: burst defaults to the rate rounded up (at least 1). */
export function rateLimitOf(s: RateLimitSetting): RateLimit {
  return { rps: s.rps, burst: s.burst ?? Math.max(1, Math.ceil(s.rps)) };
}

/** Whole seconds covering `sec` (0 for none), as the headers carry them. */
function wholeSeconds(sec: number): number {
  return sec <= EPSILON ? 0 : Math.ceil(sec - EPSILON);
}

/** What a bucket says of one request. */
export interface Decision {
  allowed: boolean;
  /** The bucket's size (RateLimit-Limit). */
  limit: number;
  /** Whole tokens left after this request (RateLimit-Remaining). */
  remaining: number;
  /** Whole seconds until the bucket is full again (RateLimit-Reset); 0 when it is full. */
  resetSec: number;
  /** Whole seconds until the next token, at least 1 (Retry-After of a refused request). */
  retryAfterSec: number;
}

/** One token bucket; times are the clock's milliseconds. */
export class TokenBucket {
  readonly limit: RateLimit;
  private tokens: number;
  private at: number;

  constructor(limit: RateLimit, now: number) {
    this.limit = limit;
    this.tokens = limit.burst;
    this.at = now;
  }

  /** Adds the tokens earned since the last look, up to the burst (a clock going back adds none). */
  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.at) * this.limit.rps) / 1000);
    this.at = now;
  }

  /** Takes a token for one request when there is a whole one. */
  take(now: number): Decision {
    this.refill(now);
    const allowed = this.tokens >= 1 - EPSILON;
    if (allowed) this.tokens = Math.max(0, this.tokens - 1);
    return this.decision(allowed);
  }

  /** The bucket now, without taking anything. */
  peek(now: number): Decision {
    this.refill(now);
    return this.decision(this.tokens >= 1 - EPSILON);
  }

  private decision(allowed: boolean): Decision {
    const { rps, burst } = this.limit;
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(this.tokens + EPSILON),
      resetSec: wholeSeconds((burst - this.tokens) / rps),
      retryAfterSec: Math.max(1, wholeSeconds((1 - this.tokens) / rps)),
    };
  }
}

/** The RateLimit-* headers of a decision (names of the IETF draft, values in whole units). */
export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(d.resetSec),
  };
}

type Source = OrgRateLimit["source"];

/** The limit in force for an org, where it comes from, and its bucket (none when unlimited). */
interface Entry {
  limit: RateLimit | null;
  source: Source;
  bucket: TokenBucket | undefined;
}

export interface RateLimitsOptions {
  clock: Clock;
  /** The limit of every org its seed entry says nothing about (`--rate-limit`). */
  server?: RateLimitSetting | null;
  /** The seed's `rate_limit` of an org: a limit, null (never limited), undefined (not said). */
  seed: (org: string) => RateLimitSetting | null | undefined;
}

/** What a snapshot keeps of the rate limits: those set at run time (null: lifted) and the refusals counted. */
export interface SavedRateLimits {
  overrides: [org: string, limit: RateLimit | null][];
  refused: [org: string, count: number][];
}

/** The rate limits of every org: the limit in force, its bucket, and how many requests it refused. */
export class RateLimits {
  private readonly clock: Clock;
  private readonly server: RateLimit | null;
  private readonly seed: RateLimitsOptions["seed"];
  /** Limits the admin API set (null: lifted), by org. */
  private readonly overrides = new Map<string, RateLimit | null>();
  /** The resolved limit and bucket of each org that made a request since the last change. */
  private readonly entries = new Map<string, Entry>();
  private readonly refused = new Map<string, number>();

  constructor(opts: RateLimitsOptions) {
    this.clock = opts.clock;
    this.server = opts.server ? rateLimitOf(opts.server) : null;
    this.seed = opts.seed;
  }

  private entry(org: string): Entry {
    let e = this.entries.get(org);
    if (e) return e;
    const seeded = this.seed(org);
    const [limit, source]: [RateLimit | null, Source] = this.overrides.has(org)
      ? [this.overrides.get(org)!, "admin"]
      : seeded !== undefined
        ? [seeded && rateLimitOf(seeded), "seed"]
        : [this.server, "server"];
    // A new limit starts with a full bucket.
    e = { limit, source, bucket: limit ? new TokenBucket(limit, this.clock.now()) : undefined };
    this.entries.set(org, e);
    return e;
  }

  /**
   * Charges one request of `org`: the RateLimit-* headers its answer carries (undefined when the
   * org is not limited), or 429 RATE_LIMITED with those headers and Retry-After when its bucket
   * holds no whole token.
   */
  take(org: string): Record<string, string> | undefined {
    const bucket = this.entry(org).bucket;
    if (!bucket) return undefined;
    const d = bucket.take(this.clock.now());
    const headers = rateLimitHeaders(d);
    if (d.allowed) return headers;
    this.refused.set(org, (this.refused.get(org) ?? 0) + 1);
    const { rps, burst } = bucket.limit;
    throw new ApiError(
      "RATE_LIMITED",
      `organization ${org} is over its rate limit (rps ${rps}, burst ${burst}); retry after ${d.retryAfterSec} s`,
      { headers: { "Retry-After": String(d.retryAfterSec), ...headers } },
    );
  }

  /** Sets the limit of an org at run time (null: not limited); its bucket starts full. */
  set(org: string, setting: RateLimitSetting | null): void {
    this.overrides.set(org, setting && rateLimitOf(setting));
    this.entries.delete(org);
  }

  /** Drops the limit set at run time: the seed's or the server's applies again. */
  unset(org: string): void {
    this.overrides.delete(org);
    this.entries.delete(org);
  }

  /** What the admin API and the dashboard show of an org's limit. */
  stats(org: string): OrgRateLimit {
    const e = this.entry(org);
    return {
      org,
      limit: e.limit && { ...e.limit },
      source: e.source,
      remaining: e.bucket ? e.bucket.peek(this.clock.now()).remaining : null,
      rate_limited: this.refused.get(org) ?? 0,
    };
  }

  /** Back to the configured limits (admin reset): run-time limits, buckets and counts dropped. */
  reset(): void {
    this.overrides.clear();
    this.entries.clear();
    this.refused.clear();
  }

  /** The limits set at run time and the requests refused, for a snapshot (server/admin/state.ts). */
  save(): SavedRateLimits {
    return { overrides: [...this.overrides], refused: [...this.refused] };
  }

  /** Replaces the run-time limits and counts with those `save` gave; every bucket starts full. */
  restore(saved: SavedRateLimits): void {
    this.reset();
    for (const [org, limit] of saved.overrides) this.overrides.set(org, limit);
    for (const [org, n] of saved.refused) this.refused.set(org, n);
  }
}
