/* eslint-disable @typescript-eslint/no-explicit-any */
// The workload state machine through the API (server/workloads/lifecycle.ts): deploy, suspend, reboot,
// soft delete, provisioning errors.
import { describe, expect, it } from "vitest";
import { WorkloadState, WorkloadEvent } from "../../api/index.ts";
import { adminCall, call, expectError } from "../helpers/http.ts";
import { startTestServer, useTestServer } from "../helpers/server.ts";
import { create, deployed, rental, vm, waitForStatus } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

describe("lifecycle", () => {
  it("deploys: provisioning, then running, with urls for RENTAL and an event per transition", async () => {
    const w = await create(s, rental());
    const d = await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    expect(d.status).toBe(200);
    expect(d.body.state.status).toBe("provisioning");
    expect(d.body.revision).not.toBe(w.revision);
    const st = WorkloadState.parse(await waitForStatus(s, w.uid, "running"));
    expect(st.urls).toEqual([{ port: 8080, url: `http://${w.uid}-8080.rental.cws.local` }]);
    expect(st.ready_replicas).toBe(1);
    const ev = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/events`);
    const events = ev.body.items.map((e: unknown) => WorkloadEvent.parse(e));
    expect(events.map((e: any) => e.new_status)).toEqual(["registered", "provisioning", "running"]);
    expect(ev.body.next_cursor).toBeNull();
  });

  it("says in Retry-After when a deploy ends, and nothing once it has", async () => {
    const slow = await startTestServer({ provisionDelayMs: 1_000 });
    try {
      const w = await create(slow, rental());
      await call(slow, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
      const during = await call(slow, "GET", `/orgs/demo/workloads/${w.uid}/state`);
      expect(during.body.status).toBe("provisioning");
      const seconds = Number(during.headers.get("retry-after"));
      expect(seconds).toBeGreaterThanOrEqual(0);
      expect(seconds).toBeLessThanOrEqual(1);
      await waitForStatus(slow, w.uid, "running");
      const after = await call(slow, "GET", `/orgs/demo/workloads/${w.uid}/state`);
      expect(after.headers.get("retry-after")).toBeNull();
    } finally {
      await slow.close();
    }
  });

  it("refuses to deploy a running workload: 409 naming the status", async () => {
    const w = await deployed(s, rental());
    expect(
      expectError(
        await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`),
        409,
        "WORKLOAD_INVALID_STATE",
      ),
    ).toContain("running");
  });

  it("gives VM and BM a public IP and SSH port when running", async () => {
    const w = await deployed(s, vm());
    const st = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/state`);
    expect(st.body.public_ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(st.body.ssh_port).toEqual(expect.any(Number));
    expect(st.body.urls).toEqual([]);
  });

  it("suspends RENTAL only and redeploys from suspended", async () => {
    const w = await deployed(s, rental());
    const r = await call(s, "POST", `/orgs/demo/workloads/${w.uid}/suspend`);
    expect(r.status).toBe(200);
    expect(r.body.state.status).toBe("suspended");
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/suspend`),
      409,
      "WORKLOAD_INVALID_STATE",
    );
    expect((await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`)).status).toBe(200);
    await waitForStatus(s, w.uid, "running");
    const v = await deployed(s, vm());
    expect(
      expectError(
        await call(s, "POST", `/orgs/demo/workloads/${v.uid}/suspend`),
        400,
        "WORKLOAD_OPERATION_UNSUPPORTED",
      ),
    ).toContain("RENTAL");
  });

  it("reboots VM only, from running", async () => {
    const v = await create(s, vm());
    expectError(await call(s, "POST", `/orgs/demo/workloads/${v.uid}/reboot`), 409, "WORKLOAD_INVALID_STATE");
    await call(s, "POST", `/orgs/demo/workloads/${v.uid}/deploy`);
    await waitForStatus(s, v.uid, "running");
    const r = await call(s, "POST", `/orgs/demo/workloads/${v.uid}/reboot`);
    expect(r.body.state.status).toBe("provisioning");
    await waitForStatus(s, v.uid, "running");
    const w = await create(s, rental());
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/reboot`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
  });

  it("soft-deletes: 204, GET shows status deleted, list hides it, operations refuse it, delete again is 204", async () => {
    const w = await deployed(s, rental());
    expect((await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}`)).status).toBe(204);
    const g = await call(s, "GET", `/orgs/demo/workloads/${w.uid}`);
    expect(g.status).toBe(200);
    expect(g.body.state.status).toBe("deleted");
    expect(g.body.state.urls).toEqual([]);
    expect((await call(s, "GET", "/orgs/demo/workloads")).body.items).toEqual([]);
    expectError(await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`), 409, "WORKLOAD_INVALID_STATE");
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { image: "x:1" }),
      409,
      "WORKLOAD_INVALID_STATE",
    );
    expect((await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}`)).status).toBe(204);
    expectError(await call(s, "GET", "/orgs/demo/workloads/wl-nope"), 404, "WORKLOAD_NOT_FOUND");
    expectError(await call(s, "DELETE", "/orgs/demo/workloads/wl-nope"), 404, "WORKLOAD_NOT_FOUND");
  });

  it("puts a workload in error when provisioning fails, and deploys it again from error", async () => {
    await adminCall(s, "POST", "/orgs/demo/provisioning", {
      name: "flaky",
      outcome: "error",
      message: "image pull failed",
    });
    const w = await create(s, rental({ name: "flaky" }));
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    const st = await waitForStatus(s, w.uid, "error");
    expect(st.message).toBe("image pull failed");
    await adminCall(s, "DELETE", "/orgs/demo/provisioning");
    expect((await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`)).status).toBe(200);
    await waitForStatus(s, w.uid, "running");
  });
});
