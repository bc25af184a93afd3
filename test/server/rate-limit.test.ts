/* eslint-disable @typescript-eslint/no-explicit-any */
// Per-org request rate limits (server/http/rate-limit.ts): the token bucket's arithmetic, the 429
// and its headers, which requests count, one org's limit never touching another's, the seed's and
// the admin API's settings, the counts the admin API and the dashboard show, the serve flag, and
// faults beside the limiter. Servers run on a clock that moves only when a test moves it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { rateLimitOf, RateLimits, TokenBucket } from "../../server/http/rate-limit.ts";
import { DEFAULT_SEED, startServer, type Seed } from "../../server/index.ts";
import { adminCall, call, expectError, request, type Res } from "../helpers/http.ts";
import { startTestServer, useTestServer } from "../helpers/server.ts";

/** A clock that moves only when told (the limiter's refill is computed from it). */
function fakeClock() {
  let t = Date.now();
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** The RateLimit-* headers of an answer (null for those it does not carry). */
const limitHeaders = (r: Res) => ({
  limit: r.headers.get("ratelimit-limit"),
  remaining: r.headers.get("ratelimit-remaining"),
  reset: r.headers.get("ratelimit-reset"),
});

/** A copy of the built-in seed whose orgs are given. */
function seedWith(orgs: Seed["orgs"]): Seed {
  return { ...structuredClone(DEFAULT_SEED), orgs };
}

const keys = "/orgs/demo/ssh-keys";

describe("token bucket", () => {
  it("starts full, lets the burst through at once, then refuses", () => {
    const b = new TokenBucket({ rps: 1, burst: 3 }, 0);
    const taken = [0, 0, 0, 0].map((t) => b.take(t));
    expect(taken.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(taken.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(taken.map((d) => d.limit)).toEqual([3, 3, 3, 3]);
    expect(taken.map((d) => d.resetSec)).toEqual([1, 2, 3, 3]);
    expect(taken[3]!.retryAfterSec).toBe(1);
  });

  it("refills at rps as time passes, never above the burst", () => {
    const b = new TokenBucket({ rps: 2, burst: 4 }, 0);
    for (let i = 0; i < 4; i++) expect(b.take(0).allowed).toBe(true);
    expect(b.take(499).allowed).toBe(false);
    expect(b.take(500)).toMatchObject({ allowed: true, remaining: 0 });
    expect(b.take(500).allowed).toBe(false);
    // An hour later the bucket holds its burst, not 7200 tokens.
    expect(b.peek(3_600_500)).toMatchObject({ remaining: 4, resetSec: 0 });
    expect(b.take(3_600_500)).toMatchObject({ allowed: true, remaining: 3 });
  });

  it("adds up partial refills into whole tokens", () => {
    const b = new TokenBucket({ rps: 3, burst: 1 }, 0);
    expect(b.take(0).allowed).toBe(true);
    // Three looks a third of a token apart (float sums of thirds) make one whole token.
    expect(b.peek(1000 / 9).remaining).toBe(0);
    expect(b.peek(2000 / 9).remaining).toBe(0);
    expect(b.take(1000 / 3).allowed).toBe(true);
    expect(b.take(1000 / 3).allowed).toBe(false);
  });

  it("rounds Retry-After up to whole seconds, at least 1, never earlier than the next token", () => {
    const refusedAfter = (rps: number, wait = 0) => {
      const b = new TokenBucket({ rps, burst: 1 }, 0);
      b.take(0);
      return b.take(wait);
    };
    expect(refusedAfter(10).retryAfterSec).toBe(1); // 0.1 s
    expect(refusedAfter(0.5).retryAfterSec).toBe(2); // exactly 2 s: not 3
    expect(refusedAfter(0.25).retryAfterSec).toBe(4);
    expect(refusedAfter(0.3).retryAfterSec).toBe(4); // 3.33 s
    expect(refusedAfter(0.5, 500).retryAfterSec).toBe(2); // 1.5 s left
    expect(refusedAfter(0.5, 1500).retryAfterSec).toBe(1); // 0.5 s left
    // Coming back after Retry-After always passes; a second earlier would not.
    const b = new TokenBucket({ rps: 0.3, burst: 1 }, 0);
    b.take(0);
    const after = b.take(0).retryAfterSec;
    expect(b.take((after - 1) * 1000).allowed).toBe(false);
    expect(b.take(after * 1000).allowed).toBe(true);
  });

  it("says when the bucket is full again in RateLimit-Reset", () => {
    const b = new TokenBucket({ rps: 2, burst: 10 }, 0);
    expect(b.peek(0).resetSec).toBe(0);
    expect(b.take(0).resetSec).toBe(1); // half a second
    for (let i = 0; i < 9; i++) b.take(0);
    expect(b.peek(0)).toMatchObject({ remaining: 0, resetSec: 5 });
    expect(b.peek(2000)).toMatchObject({ remaining: 4, resetSec: 3 });
  });

  it("adds nothing when the clock goes back", () => {
    const b = new TokenBucket({ rps: 1, burst: 1 }, 1000);
    expect(b.take(1000).allowed).toBe(true);
    expect(b.take(0).allowed).toBe(false);
    expect(b.take(1999).allowed).toBe(false);
    expect(b.take(2000).allowed).toBe(true);
  });

  it("defaults the burst to the rate rounded up", () => {
    expect(rateLimitOf({ rps: 10 })).toEqual({ rps: 10, burst: 10 });
    expect(rateLimitOf({ rps: 2.5 })).toEqual({ rps: 2.5, burst: 3 });
    expect(rateLimitOf({ rps: 0.5 })).toEqual({ rps: 0.5, burst: 1 });
    expect(rateLimitOf({ rps: 5, burst: 2 })).toEqual({ rps: 5, burst: 2 });
  });

  it("takes the limit set at run time, then the seed's, then the server's", () => {
    const seed: Record<string, { rps: number } | null> = { a: { rps: 1 }, b: null };
    const limits = new RateLimits({ clock: { now: () => 0 }, server: { rps: 7 }, seed: (o) => seed[o] });
    const of = (org: string) => {
      const { limit, source } = limits.stats(org);
      return { limit, source };
    };
    expect(of("a")).toEqual({ limit: { rps: 1, burst: 1 }, source: "seed" });
    expect(of("b")).toEqual({ limit: null, source: "seed" });
    expect(of("c")).toEqual({ limit: { rps: 7, burst: 7 }, source: "server" });
    limits.set("b", { rps: 2, burst: 5 });
    limits.set("c", null);
    expect(of("b")).toEqual({ limit: { rps: 2, burst: 5 }, source: "admin" });
    expect(of("c")).toEqual({ limit: null, source: "admin" });
    expect(limits.take("c")).toBeUndefined();
    limits.unset("b");
    expect(of("b")).toEqual({ limit: null, source: "seed" });
    limits.reset();
    expect(of("c")).toEqual({ limit: { rps: 7, burst: 7 }, source: "server" });
  });
});

describe("a server with a rate limit of 10 requests/s, burst 10", () => {
  const clock = fakeClock();
  const s = useTestServer({ rateLimit: { rps: 10, burst: 10 }, clock, adminToken: "adm", each: "reset" });
  const A = (m: string, p: string, b?: unknown) => adminCall(s, m, p, b, "adm");

  it("lets exactly 10 of 100 parallel requests through and refuses 90", async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, () => call(s, "GET", keys)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(10);
    expect(statuses.filter((x) => x === 429)).toHaveLength(90);
    expect((await A("GET", "/orgs/demo/rate-limit")).body).toEqual({
      org: "demo",
      limit: { rps: 10, burst: 10 },
      source: "server",
      remaining: 0,
      rate_limited: 90,
    });
  });

  it("refuses with 429 RATE_LIMITED, Retry-After and RateLimit-* headers; allowed answers carry them too", async () => {
    const first = await call(s, "GET", keys);
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toEqual({ limit: "10", remaining: "9", reset: "1" });
    expect(first.headers.get("retry-after")).toBeNull();
    for (let i = 0; i < 8; i++) await call(s, "GET", keys);
    // An error answer of an allowed request is charged and carries the headers as well.
    const missing = await call(s, "GET", "/orgs/demo/ssh-keys/key-missing");
    expect(missing.status).toBe(404);
    expect(limitHeaders(missing)).toEqual({ limit: "10", remaining: "0", reset: "1" });

    const refused = await call(s, "POST", keys, {
      name: "k",
      ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx t@cws",
    });
    expect(expectError(refused, 429, "RATE_LIMITED")).toBe(
      "organization demo is over its rate limit (rps 10, burst 10); retry after 1 s",
    );
    expect(Object.keys(refused.body).sort()).toEqual(["error", "reason"]);
    expect(refused.headers.get("content-type")).toContain("application/json");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(limitHeaders(refused)).toEqual({ limit: "10", remaining: "0", reset: "1" });

    // A refused request is not carried out; a tenth of a second later one token is back.
    clock.advance(100);
    const listed = await call(s, "GET", keys);
    expect(listed.body.items).toEqual([]);
    expect(limitHeaders(listed)).toEqual({ limit: "10", remaining: "0", reset: "1" });
    expectError(await call(s, "GET", keys), 429, "RATE_LIMITED");
    clock.advance(1000);
    expect(limitHeaders(await call(s, "GET", keys)).remaining).toBe("9");
  });

  it("never limits health, readiness, version, the OpenAPI document, the admin API or the dashboard", async () => {
    await Promise.all(Array.from({ length: 12 }, () => call(s, "GET", keys)));
    expectError(await call(s, "GET", keys), 429, "RATE_LIMITED");
    const origin = s.origin;
    for (let i = 0; i < 3; i++) {
      for (const url of [
        `${origin}/healthz`,
        `${origin}/readyz`,
        `${origin}/version`,
        `${s.baseUrl}/healthz`,
        `${s.baseUrl}/readyz`,
        `${s.baseUrl}/version`,
        `${s.baseUrl}/openapi.json`,
        `${origin}/`,
      ]) {
        const r = await request(url, "GET", undefined, { token: "demo-token" });
        expect(r.status, url).toBe(200);
        expect(r.headers.get("ratelimit-limit"), url).toBeNull();
      }
      const dash = await request(`${origin}/dashboard/api/orgs/demo`, "GET", undefined, {
        token: "demo-token",
      });
      expect(dash.status).toBe(200);
      expect(dash.headers.get("ratelimit-limit")).toBeNull();
      const adm = await A("GET", "/orgs");
      expect(adm.status).toBe(200);
      expect(adm.headers.get("ratelimit-limit")).toBeNull();
    }
  });

  it("charges nothing for a request without a valid token (401 names no org)", async () => {
    await Promise.all(Array.from({ length: 10 }, () => call(s, "GET", keys)));
    clock.advance(100); // one token
    for (const token of [null, "nope"])
      expectError(await call(s, "GET", keys, undefined, { token }), 401, "UNAUTHORIZED");
    expect((await call(s, "GET", keys)).status).toBe(200);
    expect((await A("GET", "/orgs/demo/rate-limit")).body.rate_limited).toBe(0);
  });

  it("counts refusals per org in the admin listing and the dashboard; reset clears them", async () => {
    await Promise.all(Array.from({ length: 13 }, () => call(s, "GET", keys)));
    const orgs = (await A("GET", "/orgs")).body.items;
    expect(orgs).toEqual([
      { org: "demo", credits: 1000, rate_limit: { rps: 10, burst: 10 }, rate_limited: 3 },
      { org: "other", credits: 1000, rate_limit: { rps: 10, burst: 10 }, rate_limited: 0 },
    ]);
    const dash = await request(`${s.origin}/dashboard/api/orgs/demo`, "GET", undefined, { token: "adm" });
    expect(dash.body.rate_limit).toEqual({
      org: "demo",
      limit: { rps: 10, burst: 10 },
      source: "server",
      remaining: 0,
      rate_limited: 3,
    });
    await A("POST", "/reset");
    expect((await A("GET", "/orgs/demo/rate-limit")).body).toMatchObject({ remaining: 10, rate_limited: 0 });
  });

  it("runs faults first: a request a fault fails costs no token, and an injected 429 is not counted", async () => {
    const fault = (body: Record<string, unknown>) =>
      A("POST", "/faults", { path: "^/orgs/demo/ssh-keys$", ...body });
    await fault({ count: 3, status: 503 });
    for (let i = 0; i < 3; i++) expectError(await call(s, "GET", keys), 503, "INJECTED_FAULT");
    await fault({ count: 2, status: 429, retry_after_sec: 7 });
    for (let i = 0; i < 2; i++) {
      const r = await call(s, "GET", keys);
      expectError(r, 429, "RATE_LIMITED");
      expect(r.headers.get("retry-after")).toBe("7");
      expect(r.headers.get("ratelimit-limit")).toBeNull();
    }
    expect((await A("GET", "/orgs/demo/rate-limit")).body).toMatchObject({ remaining: 10, rate_limited: 0 });
    // A fault after the request: it was carried out (and charged), its answer replaced.
    await fault({ count: 1, status: 502, when: "after" });
    expectError(await call(s, "GET", keys), 502, "INJECTED_FAULT");
    expect((await A("GET", "/orgs/demo/rate-limit")).body.remaining).toBe(9);
  });
});

describe("one org's limit", () => {
  const clock = fakeClock();
  // demo is limited by the seed; other is not (no server limit).
  const s = useTestServer({
    clock,
    seed: seedWith([
      { slug: "demo", tokens: ["demo-token"], credits: 1000, rate_limit: { rps: 1, burst: 2 } },
      { slug: "other", tokens: ["other-token"], credits: 1000 },
    ]),
  });
  const other = (path: string) => call(s, "GET", path, undefined, { token: "other-token" });

  it("never touches another org's requests", async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => other("/orgs/other/ssh-keys")));
    expect(answers.every((r) => r.status === 200 && r.headers.get("ratelimit-limit") === null)).toBe(true);
    expect((await call(s, "GET", keys)).status).toBe(200);
    expect((await call(s, "GET", "/region")).status).toBe(200); // any org's route: the token's org pays
    expectError(await call(s, "GET", keys), 429, "RATE_LIMITED");
    expect((await other("/orgs/other/ssh-keys")).status).toBe(200);
    // The token's org pays, whatever org the path names: other cannot spend demo's budget ...
    clock.advance(1000);
    for (let i = 0; i < 5; i++) expectError(await other(keys), 403, "FORBIDDEN");
    expect((await call(s, "GET", keys)).status).toBe(200);
    // ... and demo's token on other's path is refused as demo's request.
    expectError(await call(s, "GET", "/orgs/other/ssh-keys"), 429, "RATE_LIMITED");
    const orgs = (await adminCall(s, "GET", "/orgs")).body.items;
    expect(orgs.map((o: any) => [o.org, o.rate_limit, o.rate_limited])).toEqual([
      ["demo", { rps: 1, burst: 2 }, 2],
      ["other", null, 0],
    ]);
  });
});

describe("rate limits in the seed", () => {
  const seed = seedWith([
    { slug: "demo", tokens: ["demo-token"], credits: 1000, rate_limit: { rps: 1, burst: 2 } },
    { slug: "other", tokens: ["other-token"], credits: 1000, rate_limit: null },
    { slug: "third", tokens: ["third-token"], credits: 1000 },
  ]);
  const limitOf = async (s: { adminUrl: string }, org: string) => {
    const { limit, source } = (await adminCall(s, "GET", `/orgs/${org}/rate-limit`)).body;
    return { limit, source };
  };

  it("set an org's own limit, or none (null), over the server's; kept with the data dir", async () => {
    const s = await startTestServer({ seed, rateLimit: { rps: 5 }, dataDir: true });
    let again: Awaited<ReturnType<typeof s.restart>> | undefined;
    try {
      expect(await limitOf(s, "demo")).toEqual({ limit: { rps: 1, burst: 2 }, source: "seed" });
      expect(await limitOf(s, "other")).toEqual({ limit: null, source: "seed" });
      expect(await limitOf(s, "third")).toEqual({ limit: { rps: 5, burst: 5 }, source: "server" });
      again = await s.restart();
      expect(await limitOf(again, "demo")).toEqual({ limit: { rps: 1, burst: 2 }, source: "seed" });
    } finally {
      await (again ?? s).close();
    }
  });

  it("are checked when a seed file is read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cws-rl-"));
    try {
      const file = join(dir, "seed.json");
      writeFileSync(file, JSON.stringify(seed));
      const s = await startTestServer({ seed: file });
      try {
        expect(await limitOf(s, "demo")).toEqual({ limit: { rps: 1, burst: 2 }, source: "seed" });
      } finally {
        await s.close();
      }
      const bad = seedWith([{ slug: "demo", tokens: ["t"], credits: 1, rate_limit: { rps: 0 } }]);
      writeFileSync(file, JSON.stringify(bad));
      await expect(startServer({ port: 0, seed: file })).rejects.toThrow(
        /seed file .*seed\.json: orgs\.0\.rate_limit\.rps: rps must be above 0/,
      );
      await expect(startServer({ port: 0, rateLimit: { rps: 1, burst: 0 } })).rejects.toThrow(
        "rateLimit: burst must be at least 1",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the admin API of rate limits", () => {
  const clock = fakeClock();
  const s = useTestServer({ clock, each: "reset" });
  const A = (m: string, p: string, b?: unknown) => adminCall(s, m, p, b);
  const put = (body: unknown) => A("PUT", "/orgs/demo/rate-limit", body);

  it("reads, sets, lifts and drops an org's limit at run time", async () => {
    expect((await adminCall(s, "GET", "/orgs/demo/rate-limit", undefined, "demo-token")).status).toBe(401);
    expect((await A("GET", "/orgs/demo/rate-limit")).body).toEqual({
      org: "demo",
      limit: null,
      source: "server",
      remaining: null,
      rate_limited: 0,
    });
    expect((await call(s, "GET", keys)).headers.get("ratelimit-limit")).toBeNull();

    const set = await put({ rps: 2, burst: 3 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      org: "demo",
      limit: { rps: 2, burst: 3 },
      source: "admin",
      remaining: 3,
      rate_limited: 0,
    });
    for (let i = 0; i < 3; i++) expect((await call(s, "GET", keys)).status).toBe(200);
    const refused = await call(s, "GET", keys);
    expectError(refused, 429, "RATE_LIMITED");
    expect(limitHeaders(refused)).toEqual({ limit: "3", remaining: "0", reset: "2" });

    // A new limit starts with a full bucket; burst defaults to the rate.
    expect((await put({ rps: 2 })).body).toMatchObject({ limit: { rps: 2, burst: 2 }, remaining: 2 });
    // null lifts it; the count stays.
    expect((await put(null)).body).toEqual({
      org: "demo",
      limit: null,
      source: "admin",
      remaining: null,
      rate_limited: 1,
    });
    const free = await Promise.all(Array.from({ length: 20 }, () => call(s, "GET", keys)));
    expect(free.every((r) => r.status === 200)).toBe(true);
    // DELETE: the seed's or the server's limit (here none) applies again.
    await put({ rps: 1 });
    expect((await A("DELETE", "/orgs/demo/rate-limit")).body).toMatchObject({
      limit: null,
      source: "server",
    });
    expect((await A("GET", "/orgs/other/rate-limit")).body.source).toBe("server");
  });

  it("refuses bad limits and unknown orgs", async () => {
    for (const body of [
      { rps: 0 },
      { rps: -1 },
      { rps: 1, burst: 0 },
      { rps: 1, burst: 1.5 },
      { rps: 1, x: 1 },
      {},
      "1",
    ])
      expectError(await put(body), 400, "ADMIN_INVALID");
    expectError(await A("PUT", "/orgs/demo/rate-limit"), 400, "ADMIN_INVALID");
    for (const m of ["GET", "PUT", "DELETE"])
      expectError(
        await A(m, "/orgs/nope/rate-limit", m === "PUT" ? { rps: 1 } : undefined),
        404,
        "ORG_NOT_FOUND",
      );
    expect((await A("GET", "/orgs/demo/rate-limit")).body.limit).toBeNull();
  });

  it("are dropped by an admin reset", async () => {
    await put({ rps: 1, burst: 1 });
    await call(s, "GET", keys);
    await call(s, "GET", keys);
    expect((await A("GET", "/orgs/demo/rate-limit")).body).toMatchObject({
      source: "admin",
      rate_limited: 1,
    });
    await A("POST", "/reset");
    expect((await A("GET", "/orgs/demo/rate-limit")).body).toEqual({
      org: "demo",
      limit: null,
      source: "server",
      remaining: null,
      rate_limited: 0,
    });
  });
});

describe("cws serve --rate-limit", () => {
  const BIN = fileURLToPath(new URL("../../bin/cws", import.meta.url));

  it("limits every org of the server", async () => {
    // 0.001 requests/s: no token comes back while the test runs.
    const served = await startTestServer({ subprocess: true, rateLimit: "0.001:2" });
    try {
      for (let i = 0; i < 2; i++) expect((await call(served, "GET", keys)).status).toBe(200);
      const refused = await call(served, "GET", keys);
      expectError(refused, 429, "RATE_LIMITED");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(900);
      expect(limitHeaders(refused)).toMatchObject({ limit: "2", remaining: "0" });
      const other = await call(served, "GET", "/orgs/other/ssh-keys", undefined, { token: "other-token" });
      expect(limitHeaders(other)).toMatchObject({ limit: "2", remaining: "1" });
    } finally {
      await served.close();
    }
  });

  it("refuses a malformed value with exit status 2", async () => {
    const values = ["0", "5:1.5", "1:2:3"];
    const runs = await Promise.all(
      values.map((v) =>
        promisify(execFile)(BIN, ["serve", "--port", "0", "--rate-limit", v]).then(
          () => ({ code: 0, stderr: "" }),
          (e: { code: number; stderr: string }) => e,
        ),
      ),
    );
    runs.forEach((r, i) => {
      expect(r.code, values[i]).toBe(2);
      expect(r.stderr, values[i]).toContain("--rate-limit must be RPS[:BURST]");
    });
  });
});
