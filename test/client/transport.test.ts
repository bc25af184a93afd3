// Transport behaviours that need a misbehaving server: bad bodies, resets, refused connections,
// slow answers, streams split inside a character, Retry-After dates.
import { createServer as createNetServer } from "node:net";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  CwsClient,
  type CwsApiError,
  CwsConnectionError,
  CwsInvalidResponseError,
  CwsRateLimitError,
  CwsServerError,
  CwsTimeoutError,
  CwsValidationError,
  type CwsClientOptions,
  type RetryInfo,
} from "../../client/index.ts";
import { json, startStubServer, type StubServer } from "../helpers/server.ts";
import { collect } from "./fixtures.ts";

const SECRET = "tok-SECRET-abcdef";
const state = {
  uid: "wl-1",
  workload_type: "RENTAL",
  status: "running",
  message: "",
  urls: [],
  ready_replicas: 1,
  total_replicas: 1,
  updated_at: "2025-01-01T00:00:00Z",
};
const key = { uid: "k1", name: "k", public_key_raw: "ssh-ed25519 AAAA", created_at: "t", updated_at: "t" };

let stub: StubServer | undefined;
let client: CwsClient | undefined;
afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = stub = undefined;
});

function clientOf(baseUrl: string, opts: CwsClientOptions = {}): CwsClient {
  client = new CwsClient({
    baseUrl,
    org: "demo",
    token: SECRET,
    timeoutMs: 2_000,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...opts,
  });
  return client;
}

describe("requests", () => {
  it("send the bearer token, user agent, JSON content type and X-Deployment-Type", async () => {
    stub = await startStubServer((_req, res) =>
      json(res, 200, { stdout: "", stderr: "", code: 0, timed_out: false }),
    );
    const c = clientOf(stub.baseUrl, { userAgent: "my-agent/1" });
    await c.sandboxes.exec("sb 1", { cmd: "true" }, { deploymentType: "shadow" });
    const r = stub.requests[0]!;
    expect(r.method).toBe("POST");
    expect(r.url).toBe("/v3/orgs/demo/workloads/sb%201/exec");
    expect(r.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(r.headers["user-agent"]).toBe("my-agent/1");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["x-deployment-type"]).toBe("shadow");
  });

  it("do not send the token to the unauthenticated probes", async () => {
    stub = await startStubServer((_req, res) => json(res, 200, { status: "ok" }));
    await clientOf(stub.baseUrl).meta.health();
    expect(stub.requests[0]!.url).toBe("/v3/healthz");
    expect(stub.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe("parsing", () => {
  it("drops unknown fields by default and refuses them in strict mode", async () => {
    stub = await startStubServer((_req, res) => json(res, 200, { ...state, added_later: true }));
    const s = await clientOf(stub.baseUrl).workloads.state("wl-1");
    expect(s).not.toHaveProperty("added_later");
    const strict = new CwsClient({
      baseUrl: stub.baseUrl,
      org: "demo",
      token: SECRET,
      strictResponses: true,
    });
    const e = await strict.workloads.state("wl-1").catch((x: unknown) => x);
    await strict.close();
    expect(e).toBeInstanceOf(CwsInvalidResponseError);
    expect((e as Error).message).toMatch(/added_later/);
  });

  it("names the route and the field of a mismatching response", async () => {
    stub = await startStubServer((_req, res) =>
      json(res, 200, { items: [{ ...key }, { ...key, uid: 7 }], next_cursor: null }),
    );
    const e = (await clientOf(stub.baseUrl)
      .sshKeys.list()
      .catch((x: unknown) => x)) as CwsInvalidResponseError;
    expect(e).toBeInstanceOf(CwsInvalidResponseError);
    expect(e.route).toBe("GET /orgs/{org}/ssh-keys");
    expect(e.issues[0]).toMatch(/^items\[1\]\.uid: /);
    expect(e.message).toContain("GET /orgs/demo/ssh-keys");
  });

  it("reports a body that is not JSON", async () => {
    stub = await startStubServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>proxy login</html>");
    });
    const e = await clientOf(stub.baseUrl)
      .sshKeys.get("k1")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CwsInvalidResponseError);
    expect((e as Error).message).toMatch(/not JSON/);
  });

  it("keeps the text of an error body that is not JSON, and the request id", async () => {
    stub = await startStubServer((_req, res) => {
      res.writeHead(400, { "content-type": "text/plain", "x-request-id": "req-42" });
      res.end("bad gateway config");
    });
    const e = (await clientOf(stub.baseUrl)
      .sshKeys.get("k1")
      .catch((x: unknown) => x)) as CwsValidationError;
    expect(e).toBeInstanceOf(CwsValidationError);
    expect(e.reason).toBe("UNKNOWN");
    expect(e.serviceMessage).toBe("bad gateway config");
    expect(e.requestId).toBe("req-42");
  });
});

describe("retries on the wire", () => {
  it("retry a GET after the connection is reset, but not a create", async () => {
    stub = await startStubServer((req, res, n) => {
      if (n % 2 === 1) return req.socket.destroy();
      json(res, 200, key);
    });
    const retries: RetryInfo[] = [];
    const c = clientOf(stub.baseUrl, { onRetry: (i) => retries.push(i) });
    expect((await c.sshKeys.get("k1")).uid).toBe("k1");
    expect(retries).toHaveLength(1);
    expect(retries[0]!.route).toBe("GET /orgs/{org}/ssh-keys/{uid}");

    const before = stub.requests.length;
    const e = (await c.sshKeys
      .create({ name: "k", ssh_key: "ssh-ed25519 AAAA" })
      .catch((x: unknown) => x)) as CwsConnectionError;
    expect(e).toBeInstanceOf(CwsConnectionError);
    expect(e.sent).toBe(true);
    expect(stub.requests.length - before).toBe(1);
    expect(retries).toHaveLength(1);
  });

  it("retry even a create when the connection was refused (nothing was sent), for the unreachable window whatever the count", async () => {
    const srv = createNetServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const retries: RetryInfo[] = [];
    const c = clientOf(`http://127.0.0.1:${port}/v3`, {
      maxRetries: 2,
      unreachableTimeoutMs: 1_000,
      onRetry: (i) => retries.push(i),
    });
    const e = (await c.sshKeys
      .create({ name: "k", ssh_key: "x" })
      .catch((x: unknown) => x)) as CwsConnectionError;
    expect(e).toBeInstanceOf(CwsConnectionError);
    expect(e.code).toBe("ECONNREFUSED");
    expect(e.sent).toBe(false);
    expect(retries.length).toBeGreaterThan(2);
    expect(retries.at(-1)!.unreachable!.leftMs).toBeLessThan(500);
    expect(inspect(e, { depth: Infinity })).not.toContain(SECRET);
  });

  it("honour a Retry-After HTTP date", async () => {
    stub = await startStubServer((_req, res, n) => {
      if (n === 1)
        return json(
          res,
          429,
          { error: "slow down", reason: "RATE_LIMITED" },
          { "retry-after": new Date(Date.now() + 1500).toUTCString() },
        );
      json(res, 200, key);
    });
    const retries: RetryInfo[] = [];
    await clientOf(stub.baseUrl, { onRetry: (i) => retries.push(i) }).sshKeys.get("k1");
    expect(retries[0]!.status).toBe(429);
    expect(retries[0]!.delayMs).toBeGreaterThan(0);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(1500);
  });

  it("give up after maxRetries with the last error", async () => {
    stub = await startStubServer((_req, res) =>
      json(res, 503, { error: "busy", reason: "NO_CAPACITY" }, { "retry-after": "0" }),
    );
    const e = await clientOf(stub.baseUrl, { maxRetries: 2 })
      .sshKeys.get("k1")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CwsServerError);
    expect(stub.requests).toHaveLength(3);
  });

  it("per-call maxRetries overrides the client's", async () => {
    stub = await startStubServer((_req, res) =>
      json(res, 429, { error: "busy", reason: "LIMIT" }, { "retry-after": "0" }),
    );
    const e = (await clientOf(stub.baseUrl)
      .sshKeys.get("k1", { maxRetries: 0 })
      .catch((x: unknown) => x)) as CwsRateLimitError;
    expect(e).toBeInstanceOf(CwsRateLimitError);
    expect(e.retryAfterMs).toBe(0);
    expect(stub.requests).toHaveLength(1);
  });
});

describe("waiters on the wire", () => {
  it("poll when the service's Retry-After says, not on their own backoff", async () => {
    // Provisioning until 400 ms after the first poll, saying so; a backoff from 100 ms would ask 4 times.
    let first = 0;
    stub = await startStubServer((_req, res) => {
      first ||= Date.now();
      const left = first + 400 - Date.now();
      if (left <= 0) return json(res, 200, state);
      json(res, 200, { ...state, status: "provisioning" }, { "retry-after": (left / 1000).toFixed(3) });
    });
    const s = await clientOf(stub.baseUrl).workloads.waitForStatus("wl-1", "running", { timeoutMs: 10_000 });
    expect(s.status).toBe("running");
    expect(stub.requests).toHaveLength(2);
  });

  it("keep polling through a 429 after its retries, at the pace its Retry-After gives", async () => {
    stub = await startStubServer((_req, res, n) => {
      if (n <= 2)
        return json(res, 429, { error: "slow down", reason: "RATE_LIMITED" }, { "retry-after": "0.05" });
      json(res, 200, state);
    });
    const c = clientOf(stub.baseUrl, { maxRetries: 0 });
    expect((await c.workloads.waitForStatus("wl-1", "running", { timeoutMs: 10_000 })).status).toBe(
      "running",
    );
    expect(stub.requests).toHaveLength(3);
  });
});

describe("timeouts and cancellation", () => {
  it("time out a slow answer with CwsTimeoutError, retrying a GET", async () => {
    stub = await startStubServer(() => {
      /* never answers */
    });
    const retries: RetryInfo[] = [];
    const e = (await clientOf(stub.baseUrl, {
      timeoutMs: 100,
      maxRetries: 1,
      onRetry: (i) => retries.push(i),
    })
      .sshKeys.get("k1")
      .catch((x: unknown) => x)) as CwsTimeoutError;
    expect(e).toBeInstanceOf(CwsTimeoutError);
    expect(e.timeoutMs).toBe(100);
    expect(retries).toHaveLength(1);
    expect(stub.requests).toHaveLength(2);
  });

  it("does not retry a timed-out create", async () => {
    stub = await startStubServer(() => {});
    const e = await clientOf(stub.baseUrl, { timeoutMs: 100 })
      .volumes.create({ name: "v", size_in_mb: 1, resource_name: "r" })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CwsTimeoutError);
    expect(stub.requests).toHaveLength(1);
  });

  it("rejects with the signal's own reason when aborted", async () => {
    stub = await startStubServer(() => {});
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const e = await clientOf(stub.baseUrl)
      .sshKeys.get("k1", { signal: ac.signal })
      .catch((x: unknown) => x);
    expect(e).toBe(ac.signal.reason);
    expect((e as Error).name).toBe("AbortError");
  });

  it("rejects with the signal's own reason when aborted while the body arrives", async () => {
    stub = await startStubServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"uid":'); // the rest never comes
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const e = await clientOf(stub.baseUrl)
      .sshKeys.get("k1", { signal: ac.signal })
      .catch((x: unknown) => x);
    expect(e).toBe(ac.signal.reason);
  });

  it("times out an answer whose body stops coming", async () => {
    stub = await startStubServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"uid":');
    });
    const e = await clientOf(stub.baseUrl, { timeoutMs: 100, maxRetries: 0 })
      .sshKeys.get("k1")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CwsTimeoutError);
  });

  it("reads an answer that comes in pieces and starts with a byte order mark", async () => {
    stub = await startStubServer((_req, res) => {
      res.writeHead(409, { "content-type": "application/json" });
      const bytes = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(JSON.stringify({ error: "gone wrong", reason: "X" })),
      ]);
      res.write(bytes.subarray(0, 5));
      setTimeout(() => res.end(bytes.subarray(5)), 20);
    });
    const e = (await clientOf(stub.baseUrl)
      .sshKeys.get("k1")
      .catch((x: unknown) => x)) as CwsApiError;
    expect(e.status).toBe(409);
    expect(e.reason).toBe("X");
    expect(e.message).toContain("gone wrong");
  });

  it("aborts a retry sleep", async () => {
    stub = await startStubServer((_req, res) =>
      json(res, 429, { error: "x", reason: "X" }, { "retry-after": "30" }),
    );
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 100);
    const e = await clientOf(stub.baseUrl)
      .sshKeys.get("k1", { signal: ac.signal })
      .catch((x: unknown) => x);
    expect((e as Error).name).toBe("AbortError");
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});

describe("streams", () => {
  it("decode UTF-8 split across chunks and close on break", async () => {
    let closed = false;
    stub = await startStubServer((req, res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      const bytes = Buffer.from("héllo wörld\n", "utf8");
      res.write(bytes.subarray(0, 2)); // splits "é"
      setTimeout(() => res.write(bytes.subarray(2)), 20);
      const more = setInterval(() => res.write("tick\n"), 20);
      req.socket.on("close", () => {
        closed = true;
        clearInterval(more);
      });
    });
    const c = clientOf(stub.baseUrl);
    let text = "";
    for await (const chunk of c.workloads.followLogs("wl-1", { tail: 5 })) {
      text += chunk;
      if (text.includes("tick")) break;
    }
    expect(text.startsWith("héllo wörld\n")).toBe(true);
    expect(stub.requests[0]!.url).toBe("/v3/orgs/demo/workloads/wl-1/logs?tail=5&follow=true");
    await expect.poll(() => closed).toBe(true);
  });

  it("stream timeouts cover only the headers", async () => {
    stub = await startStubServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("a");
      setTimeout(() => res.end("b"), 300);
    });
    const chunks = await collect(
      clientOf(stub.baseUrl, { timeoutMs: 100 }).workloads.exec("wl-1", ["echo", "a b"]),
    );
    expect(chunks.join("")).toBe("ab");
    expect(stub.requests[0]!.url).toBe("/v3/orgs/demo/workloads/wl-1/exec?command=echo&command=a+b");
  });

  it("close() ends an open stream", async () => {
    stub = await startStubServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("start\n");
    });
    const c = clientOf(stub.baseUrl);
    const it = c.workloads.followLogs("wl-1");
    expect((await it.next()).value).toBe("start\n");
    const pending = it.next().catch((e: unknown) => e);
    await c.close();
    const e = (await pending) as CwsConnectionError;
    expect(e).toBeInstanceOf(CwsConnectionError);
    expect(e.code).toBe("CLIENT_CLOSED");
  });
});
