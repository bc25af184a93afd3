/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from "vitest";
import { adminCall, call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, createSshKey, createVolume, PUBLIC_KEY, rental, waitForStatus } from "./fixtures.ts";

// Each test starts from the seed, with no fault injected (reset drops them too).
const s = useTestServer({ adminToken: "adm", each: "reset" });
const A = (m: string, p: string, b?: unknown) => adminCall(s, m, p, b, "adm");
const keyBody = (name: string) => ({ name, ssh_key: PUBLIC_KEY });

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
    const key = await createSshKey(s);
    const vol = await createVolume(s, "v", 1);
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

  it("fails after acting: the create is carried out, then its answer is replaced or the connection cut", async () => {
    await A("POST", "/faults", {
      method: "POST",
      path: "^/orgs/demo/workloads$",
      count: 1,
      status: 502,
      when: "after",
    });
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", rental({ name: "lost" })),
      502,
      "INJECTED_FAULT",
    );
    const listed = (await call(s, "GET", "/orgs/demo/workloads?name=lost")).body.items;
    expect(listed).toHaveLength(1);

    await A("POST", "/faults", {
      method: "POST",
      path: "^/orgs/demo/ssh-keys$",
      count: 1,
      drop: true,
      when: "after",
    });
    await expect(call(s, "POST", "/orgs/demo/ssh-keys", keyBody("cut-after"))).rejects.toThrow();
    const keys = (await call(s, "GET", "/orgs/demo/ssh-keys")).body.items as { name: string }[];
    expect(keys.filter((k) => k.name === "cut-after")).toHaveLength(1);

    // Before acting (the default): nothing is made, for an error and for a cut connection alike.
    await A("POST", "/faults", { method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, drop: true });
    await expect(call(s, "POST", "/orgs/demo/ssh-keys", keyBody("cut-before"))).rejects.toThrow();
    await A("POST", "/faults", { method: "POST", path: "^/orgs/demo/ssh-keys$", count: 1, status: 502 });
    expectError(await call(s, "POST", "/orgs/demo/ssh-keys", keyBody("cut-before")), 502, "INJECTED_FAULT");
    const after = (await call(s, "GET", "/orgs/demo/ssh-keys")).body.items as { name: string }[];
    expect(after.filter((k) => k.name === "cut-before")).toHaveLength(0);
    // A refused request keeps the injected answer too.
    await A("POST", "/faults", {
      method: "POST",
      path: "^/orgs/demo/ssh-keys$",
      count: 1,
      status: 504,
      when: "after",
    });
    expectError(await call(s, "POST", "/orgs/demo/ssh-keys", { name: "" }), 504, "INJECTED_FAULT");
  });

  it("fails a share of matching requests at random until cleared", async () => {
    const f = await A("POST", "/faults", {
      method: "GET",
      path: "^/orgs/demo/volumes$",
      rate: 0.5,
      status: 503,
    });
    expect(f.status).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await call(s, "GET", "/orgs/demo/volumes")).status);
    const failed = statuses.filter((x) => x === 503).length;
    expect(failed).toBeGreaterThan(10);
    expect(failed).toBeLessThan(50);
    expect(statuses.every((x) => x === 200 || x === 503)).toBe(true);
    const [listed] = (await A("GET", "/faults")).body.items;
    expect(listed).toMatchObject({ id: f.body.id, rate: 0.5, when: "before", taken: failed });
    expect(listed).not.toHaveProperty("remaining");
    expect((await A("DELETE", "/faults")).status).toBe(204);
    expect((await call(s, "GET", "/orgs/demo/volumes")).status).toBe(200);
  });

  it("compiles fault regexes at creation: an invalid or oversized one is 400, matching never fails a request", async () => {
    const bad = await A("POST", "/faults", { path: "(", count: 1, status: 500 });
    expectError(bad, 400, "ADMIN_INVALID");
    expect(bad.body.error).toMatch(/valid regular expression/);
    const long = await A("POST", "/faults", { path: "a".repeat(257), count: 1, status: 500 });
    expectError(long, 400, "ADMIN_INVALID");
    expect(long.body.error).toMatch(/at most 256 characters/);
    expectError(await A("POST", "/faults", { path: "x", rate: 1.5, status: 500 }), 400, "ADMIN_INVALID");
    expectError(await A("POST", "/faults", { path: "x", status: 500 }), 400, "ADMIN_INVALID");
    expectError(
      await A("POST", "/faults", { path: "x", count: 1, status: 502, drop: true }),
      400,
      "ADMIN_INVALID",
    );
    expect((await A("GET", "/faults")).body.items).toEqual([]);
    // A fault takes exactly its count of matching requests.
    await A("POST", "/faults", { method: "GET", path: "(?=^/orgs/demo/ssh-keys$)", count: 3, status: 503 });
    for (let i = 0; i < 3; i++)
      expectError(await call(s, "GET", "/orgs/demo/ssh-keys"), 503, "INJECTED_FAULT");
    expect((await call(s, "GET", "/orgs/demo/ssh-keys")).status).toBe(200);
  });

  it("steers provisioning outcomes by workload uid or name, with delay, until cleared", async () => {
    const a = await create(s, rental({ name: "a" }));
    const b = await create(s, rental({ name: "b" }));
    await A("POST", "/orgs/demo/provisioning", {
      workload_uid: a.uid,
      outcome: "error",
      message: "no GPU left",
    });
    await A("POST", "/orgs/demo/provisioning", { name: "b", outcome: "running", delay_ms: 1500 });
    await call(s, "POST", `/orgs/demo/workloads/${a.uid}/deploy`);
    await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`);
    expect((await call(s, "GET", `/orgs/demo/workloads/${b.uid}/state`)).body.status).toBe("provisioning");
    const st = await waitForStatus(s, a.uid, "error");
    expect(st.message).toBe("no GPU left");
    const events = (await call(s, "GET", `/orgs/demo/workloads/${a.uid}/events`)).body.items;
    expect(events.at(-1)).toMatchObject({
      new_status: "error",
      reason: "ProvisioningFailed",
      message: "no GPU left",
    });
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
