// The org's rate limit on the terminal WebSocket handshakes of a real sandbox
// (server/sandbox/routes/sockets.ts, server/http/rate-limit.ts): a handshake counts like any API
// request, by ticket or by bearer token, and a refused one is the API's 429 with its headers.
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { adminCall, call, wsUrl } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { deploySandbox, sb, ticket } from "./fixtures.ts";

const s = useTestServer();
let uid: string;
let term: string;
beforeAll(async () => {
  uid = await deploySandbox(s, { name: "limited-box" });
  const r = await call(s, "POST", sb(uid, "terminals"));
  if (r.status !== 201) throw new Error(`terminal: ${r.status} ${r.text}`);
  term = r.body.id as string;
});

/** A handshake's status, headers and body (the socket, when opened, is closed at once). */
function handshake(url: string, headers?: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body?: { reason: string } }>(
    (resolve, reject) => {
      const ws = new WebSocket(url, { headers, perMessageDeflate: false });
      ws.once("open", () => {
        ws.close();
        resolve({ status: 101, headers: {} });
      });
      ws.once("unexpected-response", (_req, res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
        );
      });
      ws.once("error", reject);
    },
  );
}

describe("WebSocket handshakes under a rate limit", () => {
  it("count against the org, by ticket or by token; a refused one is 429 RATE_LIMITED with its headers", async () => {
    const url = wsUrl(s, sb(uid, `terminals/${term}/ws`));
    const bearer = { authorization: "Bearer demo-token" };
    // 0.001 requests/s: no token comes back while the test runs.
    await adminCall(s, "PUT", "/orgs/demo/rate-limit", { rps: 0.001, burst: 4 });
    try {
      const [t1, t2] = [await ticket(s, uid), await ticket(s, uid)]; // 2 requests
      expect((await handshake(`${url}?ticket=${t1}`)).status).toBe(101); // 3
      expect((await handshake(url, bearer)).status).toBe(101); // 4
      const refused = await handshake(url, bearer);
      expect(refused.status).toBe(429);
      expect(refused.body!.reason).toBe("RATE_LIMITED");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(900);
      expect(refused.headers).toMatchObject({ "ratelimit-limit": "4", "ratelimit-remaining": "0" });
      // A ticket handshake is counted once its ticket admits it (the ticket is used up).
      const byTicket = await handshake(`${url}?ticket=${t2}`);
      expect(byTicket.status).toBe(429);
      expect(byTicket.body!.reason).toBe("RATE_LIMITED");
      // An unknown ticket names no org to charge: 401, not counted.
      expect((await handshake(`${url}?ticket=nope`)).status).toBe(401);
      expect((await adminCall(s, "GET", "/orgs/demo/rate-limit")).body).toMatchObject({
        remaining: 0,
        rate_limited: 2,
      });
    } finally {
      await adminCall(s, "DELETE", "/orgs/demo/rate-limit");
    }
  });
});
