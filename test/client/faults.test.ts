// Retries and error mapping under faults injected into the reference server, and the token's absence from errors.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  CwsApiError,
  CwsClient,
  CwsConnectionError,
  CwsRateLimitError,
  CwsServerError,
  CwsTimeoutError,
  CwsValidationError,
  isAmbiguous,
  withRetryBudget,
  type RetryInfo,
} from "../../client/index.ts";
import { admin, DEMO_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { sshKey } from "../helpers/ssh-keys.ts";
import { collect, rejection, testClient, uniq } from "./fixtures.ts";

// Each test starts with no fault injected.
const server = useTestServer({ each: "clear-faults" });

const fault = (f: Record<string, unknown>) => admin(server, "POST", "/faults", f);

function recording(opts: Parameters<typeof testClient>[1] = {}) {
  const retries: RetryInfo[] = [];
  const client = testClient(server, { onRetry: (i) => retries.push(i), ...opts });
  return { client, retries };
}

async function keyCount(client: CwsClient, name: string): Promise<number> {
  return (await collect(client.sshKeys.iterate({}))).filter((k) => k.name === name).length;
}

describe("retry budget", () => {
  it("waits out a 429 burst longer than maxRetries when a deadline gives the budget", async () => {
    const { client, retries } = recording({ maxRetries: 1, retry: { baseDelayMs: 20, maxDelayMs: 50 } });
    await fault({ method: "GET", path: "^/orgs/demo/ssh-keys$", count: 6, status: 429 });
    await expect(client.sshKeys.list()).rejects.toBeInstanceOf(CwsRateLimitError);
    expect(retries).toHaveLength(1);
    const page = await withRetryBudget({ deadline: Date.now() + 10_000 }, () => client.sshKeys.list());
    expect(page.items).toEqual(expect.any(Array));
    // The 4 faults left are retried through, beyond maxRetries.
    expect(retries).toHaveLength(1 + 4);
    await client.close();
  });

  it("stops at the deadline with the last failure, and at once when its signal aborts", async () => {
    const { client } = recording({ retry: { baseDelayMs: 50, maxDelayMs: 100 } });
    await fault({ method: "GET", path: "^/orgs/demo/volumes$", count: 1000, status: 503 });
    const t0 = Date.now();
    await rejection(
      withRetryBudget({ deadline: Date.now() + 800 }, () => client.volumes.list()),
      CwsServerError,
    );
    expect(Date.now() - t0).toBeLessThan(3_000);
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error("cancelled")), 200);
    const t1 = Date.now();
    const cancelled = await rejection(
      withRetryBudget({ deadline: Date.now() + 60_000, signal: abort.signal }, () => client.volumes.list()),
      Error,
    );
    expect(cancelled.message).toBe("cancelled");
    expect(Date.now() - t1).toBeLessThan(2_000);
    await client.close();
  });

  it("does not retry a create whose answer was lost after the service acted: the caller sees it as ambiguous", async () => {
    const { client, retries } = recording();
    const name = uniq("after");
    await fault({ method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, status: 502, when: "after" });
    const e = await rejection(
      withRetryBudget({ deadline: Date.now() + 10_000 }, () =>
        client.sshKeys.create({ name, ssh_key: sshKey(9001) }),
      ),
      CwsServerError,
    );
    expect(isAmbiguous(e)).toBe(true);
    expect(retries).toEqual([]);
    expect(await keyCount(client, name)).toBe(1);
    await fault({ method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, drop: true, when: "after" });
    const cut = await rejection(
      client.sshKeys.create({ name: `${name}-cut`, ssh_key: sshKey(9002) }),
      CwsConnectionError,
    );
    expect(isAmbiguous(cut)).toBe(true);
    expect(await keyCount(client, `${name}-cut`)).toBe(1);
    await client.close();
  });
});

describe("retries", () => {
  it("429 with Retry-After: waits the given time, then succeeds", async () => {
    const { client, retries } = recording();
    await fault({ method: "GET", path: "^/orgs/demo/ssh-keys$", count: 1, status: 429, retry_after_sec: 1 });
    const t0 = Date.now();
    await client.sshKeys.list();
    const elapsed = Date.now() - t0;
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({
      attempt: 1,
      status: 429,
      delayMs: 1000,
      route: "GET /orgs/{org}/ssh-keys",
    });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    await client.close();
  });

  it("503: retried until it passes, counting attempts", async () => {
    const { client, retries } = recording();
    await fault({ method: "GET", path: "^/orgs/demo/volumes$", count: 2, status: 503 });
    await client.volumes.list();
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([
      [1, 503],
      [2, 503],
    ]);
    expect(await admin<{ items: unknown[] }>(server, "GET", "/faults")).toEqual({ items: [] });
    await client.close();
  });

  it("503 more often than maxRetries: the last error surfaces after maxRetries + 1 attempts", async () => {
    const { client, retries } = recording({ maxRetries: 2 });
    await fault({
      method: "GET",
      path: "^/orgs/demo/volumes$",
      count: 5,
      status: 503,
      reason: "INJECTED_FAULT",
    });
    const e = await rejection(client.volumes.list(), CwsServerError);
    expect(e.status).toBe(503);
    expect(e.reason).toBe("INJECTED_FAULT");
    expect(retries).toHaveLength(2);
    const left = await admin<{ items: { remaining: number }[] }>(server, "GET", "/faults");
    expect(left.items[0]!.remaining).toBe(2);
    await client.close();
  });

  it("POST create is NOT retried on 502 (ambiguous) and nothing is created twice", async () => {
    const { client, retries } = recording();
    const name = uniq("k502");
    await fault({ method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, status: 502 });
    const e = await rejection(client.sshKeys.create({ name, ssh_key: sshKey(502) }), CwsServerError);
    expect(e.status).toBe(502);
    expect(isAmbiguous(e)).toBe(true);
    expect(retries).toHaveLength(0);
    expect(await keyCount(client, name)).toBe(0);
    await client.close();
  });

  it("POST create IS retried on 503 and 429 (refused before acting): exactly one resource", async () => {
    const { client, retries } = recording();
    const name = uniq("k503");
    await fault({ method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, status: 503 });
    await fault({ method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, status: 429, retry_after_sec: 0 });
    await client.sshKeys.create({ name, ssh_key: sshKey(503) });
    expect(retries.map((r) => r.status).sort()).toEqual([429, 503]);
    expect(await keyCount(client, name)).toBe(1);
    await client.close();
  });

  it("idempotent requests are retried on 502: GET, PATCH, DELETE", async () => {
    const { client, retries } = recording();
    const k = await client.sshKeys.create({ name: uniq("k"), ssh_key: sshKey(777) });
    for (const method of ["GET", "PATCH", "DELETE"])
      await fault({ method, path: `^/orgs/demo/ssh-keys/${k.uid}$`, count: 1, status: 502 });
    await client.sshKeys.get(k.uid);
    await client.sshKeys.update(k.uid, { name: "patched" });
    await client.sshKeys.delete(k.uid);
    expect(retries.map((r) => r.method)).toEqual(["GET", "PATCH", "DELETE"]);
    await client.close();
  });

  it("state transitions (deploy) are not retried on 502", async () => {
    const { client, retries } = recording();
    const w = await client.workloads.create({
      type: "RENTAL",
      name: uniq("dep"),
      image: "nginx",
      resource_name: "cpu-rental-small",
    });
    await fault({ method: "POST", path: "/deploy$", count: 1, status: 502 });
    await rejection(client.workloads.deploy(w.uid), CwsServerError);
    expect(retries).toHaveLength(0);
    await client.close();
  });

  it("a slow GET times out and is retried; a slow create times out and is not", async () => {
    const { client, retries } = recording({ timeoutMs: 150 });
    await fault({ method: "GET", path: "^/orgs/demo/ssh-keys$", count: 1, latency_ms: 1_000 });
    await client.sshKeys.list();
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toBeInstanceOf(CwsTimeoutError);

    await fault({ method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, latency_ms: 1_000 });
    const e = await rejection(
      client.sshKeys.create({ name: uniq("slow"), ssh_key: sshKey(1000) }),
      CwsTimeoutError,
    );
    expect(e.sent).toBe(true);
    expect(isAmbiguous(e)).toBe(true);
    expect(retries).toHaveLength(1);
    await client.close();
  });

  it("maxRetries: 0 disables retries", async () => {
    const { client, retries } = recording({ maxRetries: 0 });
    await fault({ method: "GET", path: "^/orgs/demo/ssh-keys$", count: 1, status: 503 });
    await rejection(client.sshKeys.list(), CwsServerError);
    expect(retries).toHaveLength(0);
    await client.close();
  });
});

describe("error classes through the server", () => {
  it.each([
    { status: 400, cls: CwsValidationError },
    { status: 413, cls: CwsValidationError },
    { status: 415, cls: CwsValidationError },
    { status: 429, cls: CwsRateLimitError },
    { status: 500, cls: CwsServerError },
    { status: 504, cls: CwsServerError },
    { status: 418, cls: CwsApiError },
  ])("status $status maps to $cls.name", async ({ status, cls }) => {
    const client = testClient(server, { maxRetries: 0 });
    await fault({
      method: "GET",
      path: "^/orgs/demo/volumes$",
      count: 1,
      status,
      reason: `CUSTOM_${status}`,
    });
    const e = await rejection(client.volumes.list(), cls);
    expect(e.constructor).toBe(cls);
    expect(e.status).toBe(status);
    expect(e.reason).toBe(`CUSTOM_${status}`);
    expect(e.route).toBe("GET /orgs/{org}/volumes");
    await client.close();
  });

  it("429 carries retryAfterMs", async () => {
    const client = testClient(server, { maxRetries: 0 });
    await fault({ method: "GET", path: "^/orgs/demo/volumes$", count: 1, status: 429, retry_after_sec: 7 });
    const e = await rejection(client.volumes.list(), CwsRateLimitError);
    expect(e.retryAfterMs).toBe(7000);
    await client.close();
  });
});

describe("the token never leaks", () => {
  const leaks = (e: unknown, token: string) =>
    [
      String(e),
      (e as Error).message,
      (e as Error).stack ?? "",
      inspect(e, { depth: Infinity, showHidden: true }),
      JSON.stringify(e),
    ].some((s) => s.includes(token));

  it("not in API errors, timeouts, connection errors or the client itself", async () => {
    const secret = "wrong-secret-token-987";
    const bad = testClient(server, { token: secret, maxRetries: 0 });
    const e401 = await bad.sshKeys.list().catch((x: unknown) => x);
    expect(e401).toBeInstanceOf(CwsApiError);
    expect(leaks(e401, secret)).toBe(false);
    expect(inspect(bad, { depth: Infinity, showHidden: true })).not.toContain(secret);
    await bad.close();

    const client = testClient(server, { maxRetries: 0, timeoutMs: 100 });
    await fault({ method: "GET", path: "^/orgs/demo/volumes$", count: 1, status: 500 });
    const e500 = await client.volumes.list().catch((x: unknown) => x);
    await fault({ method: "GET", path: "^/orgs/demo/volumes$", count: 1, latency_ms: 1_000 });
    const eTimeout = await client.volumes.list().catch((x: unknown) => x);
    const e404 = await client.workloads.get("nope").catch((x: unknown) => x);
    for (const e of [e500, eTimeout, e404]) {
      expect(e).toBeInstanceOf(Error);
      expect(leaks(e, DEMO_TOKEN)).toBe(false);
    }
    await client.close();

    const dead = new CwsClient({
      baseUrl: "http://127.0.0.1:9/v3",
      org: "demo",
      token: secret,
      maxRetries: 0,
      timeoutMs: 1_000,
    });
    const eConn = await dead.sshKeys.list().catch((x: unknown) => x);
    expect(eConn).toBeInstanceOf(CwsConnectionError);
    expect(leaks(eConn, secret)).toBe(false);
    await dead.close();
  });
});
