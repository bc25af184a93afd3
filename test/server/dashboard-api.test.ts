import { beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { deployed, rental } from "./fixtures.ts";

describe("dashboard: page and JSON access", () => {
  const server = useTestServer({ provisionDelayMs: 10, adminToken: "admin-secret" });
  let uid: string;
  const get = (path: string, token?: string) =>
    request(`${server.origin}${path}`, "GET", undefined, { token });
  beforeAll(async () => {
    uid = (await deployed(server, rental())).uid;
  });

  it("serves the page without data, under a strict content security policy", async () => {
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = page.text;
    expect(html).not.toContain("demo-token");
    expect(html).not.toMatch(/<script>[^<]/); // no inline script
    expect((await get("/dashboard/app.js")).headers.get("content-type")).toContain("text/javascript");
    expect((await get("/dashboard/../package.json")).status).toBe(404);
    expect((await get("/dashboard/cli.ts")).status).toBe(404);
  });

  it("answers only to the admin token (every org) or an org's token (that org)", async () => {
    expect((await get("/dashboard/api/orgs/demo")).status).toBe(401);
    expect((await get("/dashboard/api/orgs/demo", "admin-token")).status).toBe(401);
    expect((await get("/dashboard/api/session", "admin-secret")).body).toEqual({
      role: "admin",
      orgs: ["demo", "other"],
    });
    expect((await get("/dashboard/api/session", "other-token")).body).toEqual({
      role: "org",
      orgs: ["other"],
    });
    const cross = await get("/dashboard/api/orgs/demo", "other-token");
    expect(cross.status).toBe(403);
    expect(cross.body.reason).toBe("FORBIDDEN");
    expect((await get(`/dashboard/api/orgs/demo/workloads/${uid}/events`, "other-token")).status).toBe(403);
    // Another org's workload is not found inside one's own org.
    expect((await get(`/dashboard/api/orgs/other/workloads/${uid}/logs`, "other-token")).status).toBe(404);
  });

  it("shows an org's workloads with status, cost and URLs, and a workload's events and logs", async () => {
    for (const token of ["demo-token", "admin-secret"]) {
      const o = (await get("/dashboard/api/orgs/demo", token)).body as {
        workloads: {
          uid: string;
          cost_per_hour: number;
          state: { status: string; urls: { url: string }[] };
        }[];
      };
      expect(o.workloads).toEqual([
        expect.objectContaining({
          uid,
          cost_per_hour: 0.8,
          state: expect.objectContaining({
            status: "running",
            urls: [{ port: 8080, url: `http://${uid}-8080.rental.cws.local` }],
          }),
        }),
      ]);
      const events = (await get(`/dashboard/api/orgs/demo/workloads/${uid}/events`, token)).body as {
        items: { event_type: string; new_status: string | null }[];
      };
      expect(events.items.map((e) => e.new_status)).toEqual(["registered", "provisioning", "running"]);
      const logs = await get(`/dashboard/api/orgs/demo/workloads/${uid}/logs`, token);
      expect(logs.headers.get("content-type")).toContain("text/plain");
      expect(logs.text).toContain("listening on 0.0.0.0:8080/tcp");
    }
  });
});
