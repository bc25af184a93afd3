/* eslint-disable @typescript-eslint/no-explicit-any */
// No request goes unanswered: hostile traffic from concurrent keep-alive clients against a running
// sandbox (hostile-traffic.ts) is answered, or its connection closed, within the answer bound
// (server/http/timeouts.ts), none lost; and the cases behind it, one by one, on raw sockets: a
// body a route stops reading part way, bodies and headers that stop arriving, idle keep-alive
// connections, a call left waiting on a frozen sandbox. The server runs with timeouts of 2 s so
// that the clients' stalls cost the suite little; the long run is bench/hostile-traffic.ts.

import * as net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../server/index.ts";
import { answerBoundMs, resolveTimeouts } from "../../server/http/timeouts.ts";
import { call } from "../helpers/http.ts";
import { startTestServer, useTestServer } from "../helpers/server.ts";
import { prepareTraffic, runTraffic, type TrafficFixtures } from "./hostile-traffic.ts";
import { sb } from "./sandbox/fixtures.ts";

const TIMEOUTS = { headersMs: 2_000, bodyIdleMs: 2_000, sandboxWaitMs: 2_000 };
const BOUND_MS = answerBoundMs(resolveTimeouts(TIMEOUTS));
const REQUESTS = Number(process.env.CWS_HOSTILE_REQUESTS ?? 3_000);
const AUTH = "Authorization: Bearer demo-token\r\n";

/** A route that reads its body with a plain `for await` and refuses it at its first chunk. */
const destroyingRoute = (ctx: any) => {
  ctx.router.post("/orgs/:org/refuse-body", async (rc: any) => {
    for await (const _chunk of rc.req) throw new ApiError("INVALID_BODY", "refused at its first chunk");
    return { status: 204 };
  });
};

const s = useTestServer({ sandboxRoot: true, timeouts: TIMEOUTS, extensions: [destroyingRoute] });
let fx: TrafficFixtures;
beforeAll(async () => {
  fx = await prepareTraffic(s.origin);
});

/** A raw connection: what was written and read, with times, for a trace. */
class Conn {
  readonly sock: net.Socket;
  readonly t0 = performance.now();
  got = "";
  closedAt: number | undefined;
  private waiters: (() => void)[] = [];

  constructor(port: number) {
    this.sock = net.connect(port, "127.0.0.1");
    this.sock.on("data", (d: Buffer) => {
      this.got += d.toString("latin1");
      for (const w of this.waiters.splice(0)) w();
    });
    this.sock.on("error", () => {});
    this.sock.on("close", () => {
      this.closedAt = performance.now() - this.t0;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  send(s: string): void {
    this.sock.write(s);
  }

  /** Waits until `n` answers have come (or the connection closed, or ms passed); the status lines. */
  async answers(n: number, ms: number): Promise<string[]> {
    const deadline = performance.now() + ms;
    for (;;) {
      const lines = this.got.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];
      if (lines.length >= n || this.closedAt !== undefined || performance.now() > deadline) return lines;
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  async closed(ms: number): Promise<number | undefined> {
    const deadline = performance.now() + ms;
    while (this.closedAt === undefined && performance.now() < deadline) await sleep(20);
    return this.closedAt;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;

describe("a body a route stops reading part way", () => {
  it("PUT .../files refused part way: the next request on the connection is answered", async () => {
    // The trace of the stall: the last chunk and the end of the body come after the 400, apart.
    const c = new Conn(s.port);
    const W = `/v3/orgs/demo/workloads/${fx.sandbox}`;
    c.send(
      `PUT ${W}/files?cursor=garbage HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${chunk('{"path":"/workspace/c","content_b64":')}`,
    );
    await sleep(5);
    c.send(chunk("{"));
    expect(await c.answers(1, 5_000)).toEqual(["HTTP/1.1 400 Bad Request"]);
    expect(c.got).toMatch(/Connection: keep-alive/);
    c.send(chunk('"a":1}}'));
    await sleep(5);
    c.send("0\r\n\r\n");
    await sleep(20);
    c.send(`DELETE ${W}/terminals/valueOf HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expect(await c.answers(2, 3_000)).toEqual(["HTTP/1.1 400 Bad Request", "HTTP/1.1 404 Not Found"]);
    c.sock.destroy();
  });

  it("the same with a Content-Length, the body in three segments (the stall the issue saw)", async () => {
    const c = new Conn(s.port);
    const W = `/v3/orgs/demo/workloads/${fx.sandbox}`;
    const body = JSON.stringify({ path: "/workspace/x", content_b64: { a: 1 } });
    const cut = body.indexOf("{", 1) + 1;
    c.send(
      `PUT ${W}/files?cursor=garbage HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, cut)}`,
    );
    expect(await c.answers(1, 5_000)).toEqual(["HTTP/1.1 400 Bad Request"]);
    c.send(body.slice(cut, cut + 4));
    await sleep(5);
    c.send(body.slice(cut + 4));
    await sleep(20);
    c.send(`DELETE ${W}/terminals/valueOf HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expect(await c.answers(2, 3_000)).toEqual(["HTTP/1.1 400 Bad Request", "HTTP/1.1 404 Not Found"]);
    c.sock.destroy();
  });

  it("a refused upload's large rest is drained: the connection serves the next request", async () => {
    const c = new Conn(s.port);
    const W = `/v3/orgs/demo/workloads/${fx.sandbox}`;
    const head = '{"nope":1,"content_b64":"';
    const rest = `${"A".repeat(1 << 20)}"}`;
    c.send(
      `PUT ${W}/files HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Content-Length: ${head.length + rest.length}\r\n\r\n${head}`,
    );
    expect(await c.answers(1, 5_000)).toEqual(["HTTP/1.1 400 Bad Request"]);
    c.send(rest);
    await sleep(50);
    c.send(`GET /v3/orgs/demo/workloads/${fx.sandbox}/terminals HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expect((await c.answers(2, 3_000))[1]).toBe("HTTP/1.1 200 OK");
    c.sock.destroy();
  });

  it("a request stream destroyed before its body ended: the answer says Connection: close and closes", async () => {
    const c = new Conn(s.port);
    c.send(
      `POST /v3/orgs/demo/refuse-body HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${chunk("{")}`,
    );
    expect(await c.answers(1, 5_000)).toEqual(["HTTP/1.1 400 Bad Request"]);
    expect(c.got).toMatch(/Connection: close/i);
    expect(await c.closed(3_000)).toBeDefined();
  });
});

describe("the server's own timeouts", () => {
  const within = (ms: number | undefined, timeout: number) => {
    expect(ms).toBeDefined();
    expect(ms!).toBeGreaterThanOrEqual(timeout - 50);
    expect(ms!).toBeLessThanOrEqual(BOUND_MS);
  };

  it("a Content-Length larger than the body: 408 REQUEST_TIMEOUT after bodyIdleMs, then a close", async () => {
    const c = new Conn(s.port);
    c.send(
      `POST /v3/orgs/demo/ssh-keys HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Content-Length: 100\r\n\r\n{"name":`,
    );
    expect(await c.answers(1, BOUND_MS + 2_000)).toEqual(["HTTP/1.1 408 Request Timeout"]);
    expect(c.got).toMatch(/"reason":"REQUEST_TIMEOUT"/);
    expect(c.got).toMatch(/Connection: close/i);
    within(await c.closed(2_000), TIMEOUTS.bodyIdleMs);
  });

  it("the same on a sandbox upload, and on a chunked body never ended", async () => {
    const a = new Conn(s.port);
    a.send(
      `PUT ${sbPath()}/files HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Content-Length: 5000\r\n\r\n{"path":"/workspace/r","content_b64":"QUJD`,
    );
    const b = new Conn(s.port);
    b.send(
      `POST /v3/orgs/demo/ssh-keys HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${chunk('{"nam')}`,
    );
    for (const c of [a, b]) {
      expect(await c.answers(1, BOUND_MS + 2_000)).toEqual(["HTTP/1.1 408 Request Timeout"]);
      within(await c.closed(2_000), TIMEOUTS.bodyIdleMs);
    }
  });

  it("headers never finished: 408 after headersMs, then a close", async () => {
    const c = new Conn(s.port);
    c.send(`GET /v3/orgs/demo/workloads HTTP/1.1\r\nHost: x\r\n${AUTH}`);
    expect(await c.answers(1, BOUND_MS + 2_000)).toEqual(["HTTP/1.1 408 Request Timeout"]);
    within(await c.closed(2_000), TIMEOUTS.headersMs);
  });

  it("a body that keeps arriving slowly is not cut; an idle keep-alive connection gets no 408", async () => {
    const c = new Conn(s.port);
    c.send(
      `POST /v3/orgs/demo/ssh-keys HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n`,
    );
    // 3 s of body, a piece every 0.5 s: longer than bodyIdleMs in all, never idle that long.
    for (const piece of ['{"name":"slow",', ' "ssh_key": "x"', "}"]) {
      await sleep(500);
      c.send(chunk(piece));
      await sleep(500);
      c.send(chunk(" "));
    }
    c.send("0\r\n\r\n");
    expect(await c.answers(1, 3_000)).toEqual(["HTTP/1.1 400 Bad Request"]);
    // Idle for longer than headersMs between requests: the next one is answered.
    await sleep(TIMEOUTS.headersMs + 500);
    expect(c.closedAt).toBeUndefined();
    c.send(`GET /v3/orgs/demo/ssh-keys HTTP/1.1\r\nHost: x\r\n${AUTH}\r\n`);
    expect(await c.answers(2, 3_000)).toEqual(["HTTP/1.1 400 Bad Request", "HTTP/1.1 200 OK"]);
    c.sock.destroy();
  });

  it("an idle keep-alive connection is closed after keepAliveMs, as advertised", async () => {
    const quick = await startTestServer({ timeouts: { keepAliveMs: 1_000 } });
    try {
      const c = new Conn(quick.port);
      c.send(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(await c.answers(1, 3_000)).toEqual(["HTTP/1.1 200 OK"]);
      expect(c.got).toMatch(/Keep-Alive: timeout=1\b/);
      // node:http adds a second to what it advertises, so that a client's reuse never races it.
      const closed = await c.closed(5_000);
      expect(closed).toBeGreaterThan(1_000);
      expect(closed).toBeLessThan(3_500);
    } finally {
      await quick.close();
    }
  });

  it("refuses timeouts that make no sense", async () => {
    await expect(startTestServer({ timeouts: { headersMs: 0 } })).rejects.toThrow(/headersMs/);
    await expect(startTestServer({ timeouts: { headersMs: 20_000, requestMs: 10_000 } })).rejects.toThrow(
      /headersMs/,
    );
  });
});

describe("a sandbox call never waits without a bound", () => {
  it("an exec left waiting on a frozen sandbox: 409 WORKLOAD_SANDBOX_UNAVAILABLE after sandboxWaitMs", async () => {
    const t0 = performance.now();
    const running = call(s, "POST", sb(fx.sandbox, "exec"), { cmd: "sleep 3; echo late", timeout_sec: 30 });
    await sleep(300);
    const frozen = await call(s, "POST", sb(fx.sandbox, "freeze"));
    expect(frozen.status, frozen.text).toBe(200);
    try {
      const r = await running;
      const ms = performance.now() - t0;
      expect(r.status, r.text).toBe(409);
      expect(r.body.reason).toBe("WORKLOAD_SANDBOX_UNAVAILABLE");
      expect(r.body.error).toMatch(/frozen/);
      expect(r.headers.get("retry-after")).toBe("1");
      expect(ms).toBeLessThan(300 + BOUND_MS);
    } finally {
      const thawed = await call(s, "POST", sb(fx.sandbox, "thaw"));
      expect(thawed.status, thawed.text).toBe(200);
    }
    const after = await call(s, "POST", sb(fx.sandbox, "exec"), { cmd: "echo ok" });
    expect(after.body.stdout).toBe("ok\n");
  });
});

describe("hostile traffic", () => {
  it(`${REQUESTS} requests from 8 keep-alive clients: every one answered or closed within the bound, none lost`, async () => {
    const report = await runTraffic(fx, { requests: REQUESTS, lostAfterMs: BOUND_MS + 10_000 });
    const summary = JSON.stringify(
      { lost: report.lost, slowest: report.slowest.slice(0, 3), closes: report.closes, seed: report.seed },
      null,
      1,
    );
    expect(report.total, summary).toBe(REQUESTS);
    expect(report.lost, summary).toEqual([]);
    // The traffic's own work is at most an exec of `sleep 1`.
    const over = report.slowest.filter((o) => o.ms > BOUND_MS + (/sleep 1/.test(o.label) ? 1_000 : 0));
    expect(over, summary).toEqual([]);
    expect(report.serverErrors, summary).toEqual([]);
    expect(report.answered + report.closed).toBe(REQUESTS);
  }, 180_000);
});

function sbPath(): string {
  return `/v3/orgs/demo/workloads/${fx.sandbox}`;
}
