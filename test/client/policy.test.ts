// Pure behaviour of the client: configuration, retry policy, backoff, query strings, pagination, strict schemas.
import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { WorkloadState } from "../../api/index.ts";
import {
  CwsApiError,
  CwsAuthError,
  CwsClient,
  CwsConflictError,
  CwsConnectionError,
  CwsNotFoundError,
  CwsRateLimitError,
  CwsServerError,
  CwsTimeoutError,
  CwsValidationError,
  DEFAULT_RETRY,
  hasReason,
  isAmbiguous,
  isConflict,
  isNotFound,
  isRetryable,
  paginate,
  parseRetryAfter,
  retryDelayMs,
  strictSchema,
} from "../../client/index.ts";
import { apiError } from "../../client/errors.ts";
import { queryString } from "../../client/http.ts";
import { collect } from "./fixtures.ts";

const where = { method: "GET", route: "GET /orgs/{org}/workloads/{uid}", path: "/orgs/demo/workloads/wl-1" };
const SECRET = "tok-SECRET-123456";

describe("configuration", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("names every missing setting", () => {
    vi.stubEnv("CWS_BASE_URL", "");
    vi.stubEnv("CWS_ORG", "");
    vi.stubEnv("CWS_API_TOKEN", "");
    expect(() => new CwsClient()).toThrow(
      "missing baseUrl (or CWS_BASE_URL), org (or CWS_ORG), token (or CWS_API_TOKEN)",
    );
    expect(() => new CwsClient({ baseUrl: "http://x/v3", org: "demo" })).toThrow(
      /missing token \(or CWS_API_TOKEN\)$/,
    );
  });

  it("falls back to CWS_BASE_URL, CWS_ORG and CWS_API_TOKEN", async () => {
    vi.stubEnv("CWS_BASE_URL", "http://127.0.0.1:1/v3/");
    vi.stubEnv("CWS_ORG", "envorg");
    vi.stubEnv("CWS_API_TOKEN", SECRET);
    const c = new CwsClient();
    expect(c.baseUrl).toBe("http://127.0.0.1:1/v3");
    expect(c.org).toBe("envorg");
    await c.close();
  });

  it("rejects a bad base URL, a URL with credentials and bad numbers", () => {
    const base = { org: "demo", token: SECRET };
    expect(() => new CwsClient({ ...base, baseUrl: "not a url" })).toThrow(/not a valid URL/);
    expect(() => new CwsClient({ ...base, baseUrl: "ftp://x/v3" })).toThrow(/http\(s\)/);
    expect(() => new CwsClient({ ...base, baseUrl: "http://u:p@x/v3" })).toThrow(/credentials/);
    expect(() => new CwsClient({ ...base, baseUrl: "http://x/v3", timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => new CwsClient({ ...base, baseUrl: "http://x/v3", maxRetries: -1 })).toThrow(/maxRetries/);
  });

  it("never shows the token in inspect, JSON or string forms", async () => {
    const c = new CwsClient({ baseUrl: "http://127.0.0.1:1/v3", org: "demo", token: SECRET });
    expect(inspect(c, { depth: Infinity, showHidden: true })).not.toContain(SECRET);
    expect(inspect(c.workloads, { depth: Infinity, showHidden: true })).not.toContain(SECRET);
    expect(inspect(c.sandboxes, { depth: Infinity, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(c)).not.toContain(SECRET);
    expect(String(c)).not.toContain(SECRET);
    expect(Object.keys(c)).not.toContain("token");
    await c.close();
  });

  it("refuses calls after close", async () => {
    const c = new CwsClient({ baseUrl: "http://127.0.0.1:1/v3", org: "demo", token: SECRET });
    await c.close();
    const e = await c.sshKeys.get("k1").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CwsConnectionError);
    expect((e as CwsConnectionError).code).toBe("CLIENT_CLOSED");
  });

  it("refuses an empty uid instead of calling the collection route", async () => {
    const c = new CwsClient({ baseUrl: "http://127.0.0.1:1/v3", org: "demo", token: SECRET });
    await expect(c.workloads.get("")).rejects.toThrow(/uid must be a non-empty string/);
    await c.close();
  });
});

describe("error classes", () => {
  it("are chosen by status", () => {
    const of = (status: number) => apiError({ ...where, status, reason: "X", message: "m" });
    expect(of(400)).toBeInstanceOf(CwsValidationError);
    expect(of(413)).toBeInstanceOf(CwsValidationError);
    expect(of(415)).toBeInstanceOf(CwsValidationError);
    expect(of(401)).toBeInstanceOf(CwsAuthError);
    expect(of(403)).toBeInstanceOf(CwsAuthError);
    expect(of(404)).toBeInstanceOf(CwsNotFoundError);
    expect(of(409)).toBeInstanceOf(CwsConflictError);
    expect(of(429)).toBeInstanceOf(CwsRateLimitError);
    expect(of(500)).toBeInstanceOf(CwsServerError);
    expect(of(503)).toBeInstanceOf(CwsServerError);
    expect(of(405).constructor).toBe(CwsApiError);
  });

  it("carry status, reason, route template and concrete path in the message", () => {
    const e = apiError({
      ...where,
      status: 404,
      reason: "WORKLOAD_NOT_FOUND",
      message: "workload wl-1 not found",
      requestId: "r-1",
    });
    expect(e.message).toBe("404 WORKLOAD_NOT_FOUND: workload wl-1 not found (GET /orgs/demo/workloads/wl-1)");
    expect(e).toMatchObject({
      status: 404,
      reason: "WORKLOAD_NOT_FOUND",
      route: where.route,
      path: where.path,
      requestId: "r-1",
      name: "CwsNotFoundError",
    });
    expect(e.stack).toMatch(/^CwsNotFoundError: 404/);
    expect(isNotFound(e) && hasReason(e, "WORKLOAD_NOT_FOUND")).toBe(true);
    expect(isConflict(e)).toBe(false);
  });

  it("isAmbiguous: connection lost after sending, 500, 502, 504", () => {
    expect(isAmbiguous(new CwsConnectionError({ ...where, message: "reset", sent: true }))).toBe(true);
    expect(isAmbiguous(new CwsConnectionError({ ...where, message: "refused", sent: false }))).toBe(false);
    expect(isAmbiguous(new CwsTimeoutError({ ...where, timeoutMs: 5 }))).toBe(true);
    for (const s of [500, 502, 504]) expect(isAmbiguous(apiError({ ...where, status: s }))).toBe(true);
    for (const s of [400, 409, 429, 503]) expect(isAmbiguous(apiError({ ...where, status: s }))).toBe(false);
  });
});

describe("retry policy", () => {
  const http = (status: number) => apiError({ ...where, status });
  const conn = (sent: boolean, code?: string) =>
    new CwsConnectionError({ ...where, message: "x", sent, code });

  it("retries 429 and 503 for every operation", () => {
    for (const idempotent of [true, false]) {
      expect(isRetryable(http(429), idempotent)).toBe(true);
      expect(isRetryable(http(503), idempotent)).toBe(true);
    }
  });

  it("retries 502/504 and sent-then-failed connections only for idempotent operations", () => {
    for (const e of [
      http(502),
      http(504),
      conn(true, "ECONNRESET"),
      new CwsTimeoutError({ ...where, timeoutMs: 1 }),
    ]) {
      expect(isRetryable(e, true)).toBe(true);
      expect(isRetryable(e, false)).toBe(false);
    }
  });

  it("retries a connection that never reached the service for every operation", () => {
    expect(isRetryable(conn(false, "ECONNREFUSED"), false)).toBe(true);
  });

  it("never retries 500, other 4xx, a closed client or foreign errors", () => {
    for (const s of [400, 401, 403, 404, 409, 413, 500]) expect(isRetryable(http(s), true)).toBe(false);
    expect(isRetryable(conn(false, "CLIENT_CLOSED"), true)).toBe(false);
    expect(isRetryable(new Error("x"), true)).toBe(false);
  });

  it("parses Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter("0.5", now)).toBe(500);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:03 GMT", now)).toBe(3000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("backs off exponentially with jitter, capped, and prefers a capped Retry-After", () => {
    const no = () => 0;
    const full = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => retryDelayMs(a, http(502), DEFAULT_RETRY, no))).toEqual([
      200, 400, 800, 1600, 3200, 5000, 5000,
    ]);
    expect(retryDelayMs(1, http(502), DEFAULT_RETRY, full)).toBe(150);
    const limited = apiError({ ...where, status: 429, retryAfterMs: 1500 });
    expect(retryDelayMs(1, limited)).toBe(1500);
    const huge = apiError({ ...where, status: 503, retryAfterMs: 3_600_000 });
    expect(retryDelayMs(1, huge)).toBe(DEFAULT_RETRY.maxRetryAfterMs);
  });
});

describe("query strings", () => {
  it("skip undefined, repeat arrays, spell booleans", () => {
    expect(queryString({ a: 1, b: undefined, c: null, command: ["ls", "-la", "a b"], follow: true })).toBe(
      "a=1&command=ls&command=-la&command=a+b&follow=true",
    );
    expect(queryString(undefined)).toBe("");
  });
});

describe("paginate", () => {
  it("follows next_cursor until it is empty or null", async () => {
    const pages: Record<string, { items: number[]; next_cursor?: string | null }> = {
      start: { items: [1, 2], next_cursor: "b" },
      b: { items: [3, 4], next_cursor: "c" },
      c: { items: [5], next_cursor: null },
    };
    const seen: (string | undefined)[] = [];
    const items = await collect(
      paginate(async (cursor) => {
        seen.push(cursor);
        return pages[cursor ?? "start"]!;
      }),
    );
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(seen).toEqual([undefined, "b", "c"]);
  });

  it("stops on a repeated cursor instead of looping forever", async () => {
    await expect(collect(paginate(async () => ({ items: [1], next_cursor: "same" })))).rejects.toThrow(
      /repeated/,
    );
  });

  it("fetches lazily: breaking out stops further requests", async () => {
    let calls = 0;
    for await (const _ of paginate(async () => ({ items: [++calls], next_cursor: `c${calls}` }))) break;
    expect(calls).toBe(1);
  });
});

describe("strict schemas", () => {
  const state = {
    uid: "wl-1",
    workload_type: "RENTAL",
    status: "running",
    message: "",
    urls: [{ port: 8080, url: "https://x" }],
    ready_replicas: 1,
    total_replicas: 1,
    updated_at: "2025-01-01T00:00:00Z",
  };

  it("tolerant by default: unknown fields are dropped", () => {
    const r = WorkloadState.parse({ ...state, brand_new: 1 });
    expect(r).not.toHaveProperty("brand_new");
  });

  it("strict copies refuse unknown fields at any depth", () => {
    const strict = strictSchema(WorkloadState);
    expect(strict.safeParse(state).success).toBe(true);
    expect(strict.safeParse({ ...state, brand_new: 1 }).success).toBe(false);
    expect(strict.safeParse({ ...state, urls: [{ port: 1, url: "u", extra: true }] }).success).toBe(false);
    expect(strictSchema(WorkloadState)).toBe(strict);
    const union = strictSchema(z.union([z.object({ a: z.literal(1) }), z.object({ b: z.literal(2) })]));
    expect(union.safeParse({ a: 1, c: 3 }).success).toBe(false);
  });
});
