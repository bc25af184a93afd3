/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from "vitest";
import { REASONS } from "../../api/index.ts";
import { call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, rental } from "./fixtures.ts";

const lines: string[] = [];
const s = useTestServer({ log: (l) => lines.push(l) });

describe("HTTP surface", () => {
  it("serves health, readiness and version without auth, under /v3 and at the root", async () => {
    for (const base of [s.baseUrl, s.origin]) {
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
      expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: "ready" });
      const v = (await (await fetch(`${base}/version`)).json()) as any;
      expect(v).toEqual({
        name: "cws-reference",
        version: "0.1.0",
        gitHash: expect.any(String),
        buildDate: expect.any(String),
      });
      expect(Number.isNaN(Date.parse(v.buildDate))).toBe(false);
    }
  });

  it("requires a valid bearer token: 401 UNAUTHORIZED", async () => {
    expectError(
      await call(s, "GET", "/orgs/demo/workloads", undefined, { token: null }),
      401,
      "UNAUTHORIZED",
    );
    expectError(
      await call(s, "GET", "/orgs/demo/workloads", undefined, { token: "wrong" }),
      401,
      "UNAUTHORIZED",
    );
    expectError(
      await call(s, "GET", "/orgs/demo/workloads", undefined, {
        token: null,
        headers: { authorization: "Basic abc" },
      }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("refuses another org's token with 403 without revealing anything", async () => {
    const msg = expectError(await call(s, "GET", "/orgs/other/ssh-keys"), 403, "FORBIDDEN");
    expect(msg).not.toContain("demo");
    expectError(await call(s, "GET", "/orgs/nonexistent/ssh-keys"), 403, "FORBIDDEN");
  });

  it("requires application/json for bodies: 415, and 400 for malformed JSON", async () => {
    const r = await call(s, "POST", "/orgs/demo/workloads", undefined, {
      raw: JSON.stringify(rental()),
      headers: { "content-type": "text/plain" },
    });
    expectError(r, 415, "UNSUPPORTED_MEDIA_TYPE");
    const bad = await call(s, "POST", "/orgs/demo/workloads", undefined, {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectError(bad, 400, "INVALID_BODY");
    const charset = await call(s, "POST", "/orgs/demo/workloads", undefined, {
      raw: JSON.stringify(rental()),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(charset.status).toBe(201);
  });

  it("answers unknown routes with 404 ROUTE_NOT_FOUND and wrong methods with 405", async () => {
    expectError(await call(s, "GET", "/nope"), 404, "ROUTE_NOT_FOUND");
    expectError(
      await fetch(`${s.origin}/v2/orgs/demo/workloads`).then(async (r) => ({
        status: r.status,
        body: await r.json(),
        text: "",
        headers: r.headers,
      })),
      404,
      "ROUTE_NOT_FOUND",
    );
    const r = await call(s, "PUT", "/orgs/demo/workloads");
    expectError(r, 405, "METHOD_NOT_ALLOWED");
    expect(r.headers.get("allow")).toContain("POST");
  });

  it("accepts X-Deployment-Type master and shadow only", async () => {
    expect(
      (
        await call(s, "GET", "/orgs/demo/workloads", undefined, {
          headers: { "x-deployment-type": "shadow" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(s, "GET", "/orgs/demo/workloads", undefined, {
          headers: { "x-deployment-type": "master" },
        })
      ).status,
    ).toBe(200);
    expectError(
      await call(s, "GET", "/orgs/demo/workloads", undefined, { headers: { "x-deployment-type": "canary" } }),
      400,
      "INVALID_DEPLOYMENT_TYPE",
    );
    const w = await create(s, rental({ name: "dt" }));
    await call(
      s,
      "PATCH",
      `/orgs/demo/workloads/${w.uid}`,
      { name: "dt2" },
      { headers: { "x-deployment-type": "shadow" } },
    );
    const r = await call(s, "POST", "/orgs/demo/workloads", rental({ name: "sh" }), {
      headers: { "x-deployment-type": "shadow" },
    });
    expect(s.context.store.workloads.get(r.body.uid)!.deployment_type).toBe("shadow");
  });

  it("logs one line per request with method, path, status and time, never the token or a password", async () => {
    lines.length = 0;
    await call(
      s,
      "POST",
      "/orgs/demo/workloads",
      rental({ name: "logged", registry_auth: { server: "r", username: "u", password: "pw-SECRET" } }),
    );
    await call(s, "GET", "/orgs/demo/workloads?limit=5");
    await new Promise((r) => setTimeout(r, 20));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^POST \/v3\/orgs\/demo\/workloads 201 \d+\.\dms$/);
    expect(lines[1]).toMatch(/^GET \/v3\/orgs\/demo\/workloads 200 /);
    expect(lines.join("\n")).not.toMatch(/demo-token|pw-SECRET/);
  });

  it("uses the status each reason code declares", async () => {
    for (const [reason, status] of Object.entries(REASONS)) {
      expect(status, reason).toBeGreaterThanOrEqual(400);
      expect(status, reason).toBeLessThan(600);
    }
    expect(REASONS.WORKLOAD_BM_CLAIM_CONFLICT).toBe(409);
    expect(REASONS.WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD).toBe(400);
  });

  it("refuses bodies above 1 MiB with 413", async () => {
    const big = rental({ envs: [{ name: "X", value: "x".repeat(1024 * 1024 + 10) }] });
    expectError(await call(s, "POST", "/orgs/demo/workloads", big), 413, "BODY_TOO_LARGE");
  });
});
