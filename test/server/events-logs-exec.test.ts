/* eslint-disable @typescript-eslint/no-explicit-any */
// What a workload tells about itself through the API: events (server/common/pages.ts), logs and following
// them (server/workloads/logs.ts), the RENTAL exec simulation (server/workloads/exec-simulator.ts), image
// digests, VM and BM images, regions.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, deployed, rental, vm, waitForStatus } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

describe("events, logs, exec, verify, images, region", () => {
  it("pages events with an event cursor", async () => {
    const w = await deployed(s, rental());
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/suspend`);
    const p1 = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/events?limit=2`);
    expect(p1.body.items).toHaveLength(2);
    const p2 = await call(
      s,
      "GET",
      `/orgs/demo/workloads/${w.uid}/events?limit=2&cursor=${p1.body.next_cursor}`,
    );
    expect(p2.body.items.map((e: any) => e.new_status)).toEqual(["running", "suspended"]);
    expect(p2.body.next_cursor).toBeNull();
    expectError(
      await call(s, "GET", `/orgs/demo/workloads/${w.uid}/events?cursor=999999`),
      404,
      "CURSOR_NOT_FOUND",
    );
    expectError(await call(s, "GET", `/orgs/demo/workloads/${w.uid}/events?limit=-1`), 400, "INVALID_QUERY");
  });

  it("serves logs with tail, since, previous, and VM type", async () => {
    const w = await deployed(s, rental());
    const all = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/logs`);
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toContain("text/plain");
    expect(all.text).toContain("listening on 0.0.0.0:8080/tcp");
    const tail = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/logs?tail=1`);
    expect(tail.text.trim().split("\n")).toHaveLength(1);
    const future = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/logs?since=2999-01-01T00:00:00Z`);
    expect(future.text).toBe("");
    expectError(
      await call(s, "GET", `/orgs/demo/workloads/${w.uid}/logs?since=yesterday`),
      400,
      "INVALID_QUERY",
    );
    expectError(await call(s, "GET", `/orgs/demo/workloads/${w.uid}/logs?type=serial`), 400, "INVALID_QUERY");
    await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { image: "nginx:1.28" });
    await waitForStatus(s, w.uid, "running");
    const prev = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/logs?previous=true`);
    expect(prev.text).toContain("nginx:1.27");
    expect(prev.text).not.toContain("nginx:1.28");
    const v = await deployed(s, vm());
    expect((await call(s, "GET", `/orgs/demo/workloads/${v.uid}/logs?type=qemu`)).text).toContain("[qemu]");
  });

  it("follows logs until the workload is deleted", async () => {
    const w = await deployed(s, rental());
    const res = await fetch(`${s.baseUrl}/orgs/demo/workloads/${w.uid}/logs?follow=true`, {
      headers: { authorization: "Bearer demo-token" },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("running");
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/suspend`);
    await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}`);
    let rest = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toContain("runtime resources removed");
    expect(rest).toContain("workload deleted");
  });

  it("follow stops when the client disconnects", async () => {
    const w = await deployed(s, rental());
    const ac = new AbortController();
    const res = await fetch(`${s.baseUrl}/orgs/demo/workloads/${w.uid}/logs?follow=true`, {
      headers: { authorization: "Bearer demo-token" },
      signal: ac.signal,
    });
    await res.body!.getReader().read();
    const before = s.context.lifecycle.listenerCount("workload-event");
    ac.abort();
    await new Promise((r) => setTimeout(r, 50));
    expect(s.context.lifecycle.listenerCount("workload-event")).toBe(before - 1);
  });

  it("simulates exec on a running RENTAL workload", async () => {
    const w = await deployed(s, rental({ envs: [{ name: "GREETING", value: "hi" }] }));
    const ex = (q: string) => call(s, "POST", `/orgs/demo/workloads/${w.uid}/exec?${q}`);
    expect((await ex("command=echo&command=hello&command=world")).text).toBe("hello world\n");
    expect((await ex("command=env")).text).toContain("GREETING=hi");
    expect((await ex("command=hostname")).text).toBe("web\n");
    expect((await ex("command=ls&command=-la")).text).toContain("ran 'ls -la'");
    expectError(await ex(""), 400, "INVALID_QUERY");
    const v = await create(s, vm());
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${v.uid}/exec?command=ls`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    const r = await create(s, rental({ name: "idle" }));
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${r.uid}/exec?command=ls`),
      409,
      "WORKLOAD_NOT_RUNNING",
    );
  });

  it("verifies an image digest", async () => {
    const w = await create(s, rental());
    const digest = createHash("sha256").update("nginx:1.27").digest("hex");
    expect((await call(s, "POST", "/orgs/demo/workloads/verify", { uid: w.uid, digest })).body).toEqual({
      verified: true,
    });
    expect(
      (
        await call(s, "POST", "/orgs/demo/workloads/verify", {
          uid: w.uid,
          digest: `sha256:${"0".repeat(64)}`,
        })
      ).body,
    ).toEqual({ verified: false });
    expectError(
      await call(s, "POST", "/orgs/demo/workloads/verify", { uid: w.uid, digest: "xyz" }),
      400,
      "INVALID_BODY",
    );
    expectError(
      await call(s, "POST", "/orgs/demo/workloads/verify", { uid: "wl-nope", digest }),
      404,
      "WORKLOAD_NOT_FOUND",
    );
  });

  it("lists VM images, BM images and regions", async () => {
    const vmi = await call(s, "GET", "/orgs/demo/workloads/vm-images");
    expect(vmi.body).toContainEqual(
      expect.objectContaining({
        name: "ubuntu-22.04",
        display_name: expect.any(String),
        description: expect.any(String),
      }),
    );
    const bmi = await call(s, "GET", "/orgs/demo/workloads/bm-images");
    expect(bmi.body).toContainEqual(
      expect.objectContaining({ name: "ubuntu-22.04-cuda", os_family: "linux" }),
    );
    const regions = await call(s, "GET", "/region");
    expect(regions.body).toContainEqual({ uid: "ap-south-1", name: expect.any(String), active: false });
    expect((await call(s, "GET", "/region", undefined, { token: null })).status).toBe(401);
  });
});
