/* eslint-disable @typescript-eslint/no-explicit-any */
// Access tickets, terminals over WebSocket and the desktop (RFB) on real sandboxes, through the API
// (server/sandbox/tickets.ts, server/sandbox/routes/terminals.ts, server/sandbox/routes/sockets.ts).
import { beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { call, expectError, handshake, OTHER_TOKEN, readUntil, wsUrl } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { waitFor } from "../../helpers/wait.ts";
import { create } from "../fixtures.ts";
import { deploySandbox, headless, sb, ticket } from "./fixtures.ts";

const s = useTestServer();
let uid: string;
beforeAll(async () => {
  uid = await deploySandbox(s, { name: "access-box" });
});

async function terminal(id: string, body?: unknown): Promise<any> {
  const r = await call(s, "POST", sb(id, "terminals"), body);
  if (r.status !== 201) throw new Error(`terminal: ${r.status} ${r.text}`);
  return r.body;
}

const termWs = (id: string, term: string, t?: string) =>
  wsUrl(s, `${sb(id, `terminals/${term}/ws`)}${t === undefined ? "" : `?ticket=${encodeURIComponent(t)}`}`);

async function open(url: string, headers?: Record<string, string>): Promise<WebSocket> {
  const h = await handshake(url, { headers });
  if (!h.ws) throw new Error(`handshake refused: ${h.status} ${JSON.stringify(h.body)}`);
  return h.ws;
}

describe("access tickets", () => {
  it("are minted with a ttl of 1-300 s (default 60)", async () => {
    const before = Date.now();
    const r = await call(s, "POST", sb(uid, "access-tickets"));
    expect(r.status).toBe(201);
    expect(typeof r.body.ticket).toBe("string");
    const ttl = Date.parse(r.body.expires_at) - before;
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThan(61_000);
    const r5 = await call(s, "POST", sb(uid, "access-tickets"), { ttl_sec: 5 });
    expect(Date.parse(r5.body.expires_at) - before).toBeLessThan(6_000);
    for (const ttl_sec of [0, 301, 1.5, "60"])
      expect(
        expectError(
          await call(s, "POST", sb(uid, "access-tickets"), { ttl_sec }),
          400,
          "WORKLOAD_ACCESS_TICKET_TTL_INVALID",
        ),
      ).toMatch(/ttl_sec must be an integer between 1 and 300/);
    // The body is an object or none: a JSON null is refused, as the document says (Schemathesis
    // found it accepted with 201).
    expect(expectError(await call(s, "POST", sb(uid, "access-tickets"), null), 400, "INVALID_BODY")).toMatch(
      /must be a JSON object/,
    );
    expect((await call(s, "POST", sb(uid, "access-tickets"))).status).toBe(201);
  });

  it("are single-use, scoped to one org and workload, and expire", async () => {
    const term = await terminal(uid);
    const t = await ticket(s, uid);
    const ws = await open(termWs(uid, term.id, t));
    ws.close();
    // reused
    const again = await handshake(termWs(uid, term.id, t));
    expect(again.status).toBe(401);
    expect(again.body.reason).toBe("WORKLOAD_ACCESS_TICKET_INVALID");
    // another workload of the same org
    const other = await deploySandbox(s);
    const otherTerm = await terminal(other);
    const forOther = await ticket(s, uid);
    expect((await handshake(termWs(other, otherTerm.id, forOther))).status).toBe(401);
    // another org's path (same workload UID) with a demo ticket
    const wrongOrg = await ticket(s, uid);
    const h = await handshake(
      wsUrl(s, `/orgs/other/workloads/${uid}/terminals/${term.id}/ws?ticket=${wrongOrg}`),
    );
    expect(h.status).toBe(401);
    // the other org cannot mint one for this workload at all
    expectError(
      await call(s, "POST", `/orgs/other/workloads/${uid}/access-tickets`, undefined, { token: OTHER_TOKEN }),
      404,
      "WORKLOAD_NOT_FOUND",
    );
    // expired
    const short = await ticket(s, uid, { ttl_sec: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    const expired = await handshake(termWs(uid, term.id, short));
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatch(/expired/);
    // unknown and missing
    expect((await handshake(termWs(uid, term.id, "nope"))).status).toBe(401);
    const none = await handshake(termWs(uid, term.id));
    expect(none.status).toBe(401);
    expect(none.body.reason).toBe("UNAUTHORIZED");
  });

  it("a bearer token of the org is accepted instead of a ticket; another org's token is not", async () => {
    const term = await terminal(uid);
    const ws = await open(termWs(uid, term.id), { authorization: "Bearer demo-token" });
    ws.close();
    expect((await handshake(termWs(uid, term.id), { headers: { authorization: "Bearer bad" } })).status).toBe(
      401,
    );
    const h = await handshake(wsUrl(s, `/orgs/demo/workloads/${uid}/terminals/${term.id}/ws`), {
      headers: { authorization: `Bearer ${OTHER_TOKEN}` },
    });
    expect(h.status).toBe(403);
  });
});

describe("terminals", () => {
  it("carry raw PTY bytes both ways over the WebSocket", async () => {
    const term = await terminal(uid, { cols: 120, rows: 40 });
    expect(term).toMatchObject({ exited: false });
    expect(term.pid).toBeGreaterThan(0);
    expect(term.id).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
    const ws = await open(termWs(uid, term.id, await ticket(s, uid)));
    const seen = readUntil(ws, (t) => t.includes("hello-42") && t.includes("size 40 120"));
    ws.send(Buffer.from("echo hello-$((6*7)); echo size $(stty size)\n"));
    await seen;
    ws.close();
    const list = (await call(s, "GET", sb(uid, "terminals"))).body;
    expect(list.map((t: any) => t.id)).toContain(term.id);
  });

  it("an exited session carries exit_code; DELETE removes it; unknown ids are 404", async () => {
    const term = await terminal(uid);
    const ws = await open(termWs(uid, term.id, await ticket(s, uid)));
    const closed = new Promise<number>((r) => ws.on("close", (code) => r(code)));
    ws.send(Buffer.from("exit 7\n"));
    expect(await closed).toBe(1000);
    const listed = await waitFor(async () => {
      const l = (await call(s, "GET", sb(uid, "terminals"))).body as any[];
      return l.find((t) => t.id === term.id && t.exited);
    }, "terminal exit");
    expect(listed.exit_code).toBe(7);
    expect((await call(s, "DELETE", sb(uid, `terminals/${term.id}`))).status).toBe(204);
    expectError(await call(s, "DELETE", sb(uid, `terminals/${term.id}`)), 404, "WORKLOAD_TERMINAL_NOT_FOUND");
    expectError(await call(s, "DELETE", sb(uid, `terminals/${"x".repeat(65)}`)), 400, "INVALID_PATH");
    const h = await handshake(termWs(uid, "no-such-term", await ticket(s, uid)));
    expect(h.status).toBe(404);
    expect(h.body.reason).toBe("WORKLOAD_TERMINAL_NOT_FOUND");
  });

  it("validates the size and stops at 8 live sessions per sandbox (429)", async () => {
    for (const body of [{ cols: 0 }, { rows: 1001 }, { cols: "80" }])
      expectError(await call(s, "POST", sb(uid, "terminals"), body), 400, "WORKLOAD_TERMINAL_SIZE_INVALID");
    const id = await deploySandbox(s);
    const made = [];
    for (let i = 0; i < 8; i++) made.push(await terminal(id));
    const msg = expectError(
      await call(s, "POST", sb(id, "terminals")),
      429,
      "WORKLOAD_SANDBOX_SESSION_LIMIT",
    );
    expect(msg).toMatch(/max 8/);
    expect((await call(s, "DELETE", sb(id, `terminals/${made[0].id}`))).status).toBe(204);
    await waitFor(async () => (await call(s, "POST", sb(id, "terminals"))).status === 201, "a free slot");
  });
});

describe("desktop", () => {
  it("a headless sandbox reports { available: false } and refuses the desktop socket", async () => {
    expect((await call(s, "GET", sb(uid, "desktop"))).body).toEqual({ available: false });
    const h = await handshake(wsUrl(s, `${sb(uid, "desktop/ws")}?ticket=${await ticket(s, uid)}`));
    expect(h.status).toBe(404);
    expect(h.body.reason).toBe("WORKLOAD_SANDBOX_NO_DESKTOP");
  });

  it("a desktop sandbox serves raw RFB bytes with no subprotocol", async () => {
    const w = await create(s, headless({ image: "tpl-ubuntu-desktop" }));
    await call(s, "POST", sb(w.uid, "deploy"));
    // while the sandbox and its Xvnc start, the desktop is reported but not listening yet
    expect((await call(s, "GET", sb(w.uid, "desktop"))).body).toMatchObject({
      available: true,
      listening: false,
    });
    const d = await waitFor(
      async () => {
        const r = (await call(s, "GET", sb(w.uid, "desktop"))).body;
        return r.available && r.listening ? r : undefined;
      },
      "desktop listening",
      { timeoutMs: 20_000 },
    );
    expect(d).toMatchObject({ available: true, port: 5900, listening: true });
    expect(d.ws_url).toBe(wsUrl(s, sb(w.uid, "desktop/ws")));
    const h = await handshake(`${d.ws_url}?ticket=${await ticket(s, w.uid)}`);
    const ws = h.ws;
    if (!ws) throw new Error(JSON.stringify(h));
    expect(ws.protocol).toBe("");
    const hello = await readUntil(ws, (t) => t.length >= 12);
    expect(hello.slice(0, 12)).toBe("RFB 003.008\n");
    ws.send(Buffer.from("RFB 003.008\n"));
    const types = await readUntil(ws, (t) => t.length >= 14);
    expect(types.charCodeAt(12)).toBeGreaterThan(0); // number of security types
    ws.close();
    // a client asking for a subprotocol gets none selected (so the ws library refuses the socket)
    await expect(
      handshake(`${d.ws_url}?ticket=${await ticket(s, w.uid)}`, { protocols: ["binary"] }),
    ).rejects.toThrow(/no subprotocol/i);
  });
});
