/* eslint-disable @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  adminCall,
  call,
  create,
  expectError,
  rental,
  sshKey,
  start,
  waitForStatus,
  type TestServer,
} from "./helpers.ts";

let s: TestServer;
beforeAll(async () => {
  s = await start({ adminToken: "adm" });
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await adminCall(s, "POST", "/reset", undefined, "adm");
  await adminCall(s, "DELETE", "/faults", undefined, "adm");
});
const A = (m: string, p: string, b?: unknown) => adminCall(s, m, p, b, "adm");

describe("admin API", () => {
  it("requires the admin token", async () => {
    expect((await adminCall(s, "POST", "/reset", undefined, "demo-token")).status).toBe(401);
    expect((await adminCall(s, "GET", "/faults", undefined, "admin-token")).status).toBe(401);
    expect((await fetch(`${s.adminUrl}/faults`)).status).toBe(401);
  });

  it("lists every live resource of an org, and reset goes back to the seed", async () => {
    const w = await create(s, rental());
    const gone = await create(s, rental({ name: "gone" }));
    await call(s, "DELETE", `/orgs/demo/workloads/${gone.uid}`);
    const key = await sshKey(s);
    const vol = (
      await call(s, "POST", "/orgs/demo/volumes", {
        name: "v",
        size_in_mb: 1,
        resource_name: "gpu-rental-small",
      })
    ).body.uid;
    const tpl = (
      await call(s, "POST", "/orgs/demo/templates", {
        name: "t",
        type: "RENTAL",
        manifest: { type: "RENTAL", name: "a", image: "i", resource_name: "gpu-rental-small" },
      })
    ).body.uid;
    const live = (await A("GET", "/orgs/demo/resources")).body;
    expect(live.workloads.map((x: any) => x.uid)).toEqual([w.uid]);
    expect(live.workloads[0].state.status).toBe("registered");
    expect(live.volumes.map((x: any) => x.uid)).toEqual([vol]);
    expect(live.ssh_keys.map((x: any) => x.uid)).toEqual([key]);
    expect(live.templates.map((x: any) => x.uid)).toEqual([tpl]);
    expect(live.sandbox_templates).toEqual([]);
    expect((await A("GET", "/orgs/other/resources")).body).toEqual({
      workloads: [],
      volumes: [],
      ssh_keys: [],
      templates: [],
      sandbox_templates: [],
    });
    expect((await A("GET", "/orgs/nope/resources")).status).toBe(404);

    await A("POST", "/orgs/demo/credits", { balance: 0 });
    expect((await A("POST", "/reset")).status).toBe(200);
    expect((await A("GET", "/orgs/demo/resources")).body).toEqual({
      workloads: [],
      volumes: [],
      ssh_keys: [],
      templates: [],
      sandbox_templates: [],
    });
    expect((await A("GET", "/orgs/demo/credits")).body.balance).toBe(1000);
    expect((await call(s, "GET", "/orgs/demo/sandbox-templates")).body.items).toHaveLength(2);
  });

  it("injects a counted 429 with Retry-After on matching requests only", async () => {
    const f = await A("POST", "/faults", {
      method: "POST",
      path: "^/orgs/demo/workloads$",
      count: 2,
      status: 429,
      retry_after_sec: 3,
    });
    expect(f.status).toBe(201);
    expect(f.body.id).toEqual(expect.any(String));
    expect((await A("GET", "/faults")).body.items).toMatchObject([{ id: f.body.id, remaining: 2 }]);
    expect((await call(s, "GET", "/orgs/demo/workloads")).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await call(s, "POST", "/orgs/demo/workloads", rental());
      expectError(r, 429, "RATE_LIMITED");
      expect(r.headers.get("retry-after")).toBe("3");
    }
    expect((await call(s, "POST", "/orgs/demo/workloads", rental())).status).toBe(201);
    expect((await A("GET", "/faults")).body.items).toEqual([]);
    expect((await call(s, "GET", "/orgs/demo/workloads")).body.items).toHaveLength(1);
  });

  it("injects latency and custom statuses and reasons, and clears faults", async () => {
    await A("POST", "/faults", { path: "^/orgs/demo/ssh-keys$", count: 1, latency_ms: 150 });
    const t0 = Date.now();
    expect((await call(s, "GET", "/orgs/demo/ssh-keys")).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    const t1 = Date.now();
    await call(s, "GET", "/orgs/demo/ssh-keys");
    expect(Date.now() - t1).toBeLessThan(140);
    await A("POST", "/faults", {
      path: "/workloads/[^/]+/deploy$",
      count: 5,
      status: 503,
      reason: "WORKLOAD_BM_SERVICE_UNAVAILABLE",
    });
    const w = await create(s, rental());
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`),
      503,
      "WORKLOAD_BM_SERVICE_UNAVAILABLE",
    );
    expect((await A("DELETE", "/faults")).status).toBe(204);
    expect((await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`)).status).toBe(200);
    expect((await A("POST", "/faults", { path: "(", count: 1, status: 500 })).status).toBe(400);
    expect((await A("POST", "/faults", { path: "x", count: 0, status: 500 })).status).toBe(400);
    expect((await A("POST", "/faults", { path: "x", count: 1 })).status).toBe(400);
  });

  it("steers provisioning outcomes by workload uid or name, with delay, until cleared", async () => {
    const a = await create(s, rental({ name: "a" }));
    const b = await create(s, rental({ name: "b" }));
    await A("POST", "/orgs/demo/provisioning", {
      workload_uid: a.uid,
      outcome: "error",
      message: "no GPU left",
    });
    await A("POST", "/orgs/demo/provisioning", { name: "b", outcome: "running", delay_ms: 200 });
    await call(s, "POST", `/orgs/demo/workloads/${a.uid}/deploy`);
    await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`);
    const st = await waitForStatus(s, a.uid, "error");
    expect(st.message).toBe("no GPU left");
    const events = (await call(s, "GET", `/orgs/demo/workloads/${a.uid}/events`)).body.items;
    expect(events.at(-1)).toMatchObject({
      new_status: "error",
      reason: "ProvisioningFailed",
      message: "no GPU left",
    });
    expect((await call(s, "GET", `/orgs/demo/workloads/${b.uid}/state`)).body.status).toBe("provisioning");
    await waitForStatus(s, b.uid, "running");
    expect((await A("DELETE", "/orgs/demo/provisioning")).status).toBe(204);
    await call(s, "POST", `/orgs/demo/workloads/${a.uid}/deploy`);
    await waitForStatus(s, a.uid, "running");
    expect((await A("POST", "/orgs/demo/provisioning", { outcome: "later" })).status).toBe(400);
  });

  it("sets credits", async () => {
    expect((await A("POST", "/orgs/demo/credits", { balance: 5 })).body).toEqual({ org: "demo", balance: 5 });
    expect((await A("POST", "/orgs/demo/credits", { balance: -1 })).status).toBe(400);
    const w = await create(s, rental({ resource_name: "gpu-rental-large" }));
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`),
      409,
      "WORKLOAD_INSUFFICIENT_CREDITS",
    );
  });
});
