/* eslint-disable @typescript-eslint/no-explicit-any */
// Staged failures of the reference server (provisioning rules with `failure`,
// server/workloads/staged-failures.ts): each records the events and log lines the service would.
import { describe, expect, it } from "vitest";
import { WorkloadEvent } from "../../api/index.ts";
import { adminCall, call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, rental, vm, waitForStatus } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

async function stage(body: Record<string, unknown>) {
  const r = await adminCall(s, "POST", "/orgs/demo/provisioning", { delay_ms: 40, ...body });
  expect(r.status).toBe(201);
}

async function deployFailing(body: unknown) {
  const w = await create(s, body);
  await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
  const st = await waitForStatus(s, w.uid, "error");
  const ev = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/events`);
  const events = ev.body.items.map((e: unknown) => WorkloadEvent.parse(e));
  return { w, st, events };
}

const logs = async (uid: string, query = "") =>
  (await call(s, "GET", `/orgs/demo/workloads/${uid}/logs${query}`)).text;

describe("staged failures", () => {
  it("image_pull: pull events, error ImagePullBackOff naming the image, no container output", async () => {
    await stage({ name: "pull", failure: "image_pull" });
    const { w, st, events } = await deployFailing(rental({ name: "pull", image: "ghcr.io/x/app:nope" }));
    expect(st.message).toBe(
      "image ghcr.io/x/app:nope could not be pulled: manifest for ghcr.io/x/app:nope not found: manifest unknown",
    );
    expect(events.map((e: any) => e.reason)).toEqual([
      "Registered",
      "Deploy",
      "Pulling",
      "Failed",
      "BackOff",
      "ImagePullBackOff",
    ]);
    expect(await logs(w.uid)).toBe("");
  });

  it("exit: the exit code on the events, the container's lines (env values echoed) in the log", async () => {
    await stage({
      name: "exiter",
      failure: "exit",
      exit_code: 3,
      logs: ["connecting with password {env:DB_PASSWORD}", "fatal: authentication failed"],
    });
    const { w, st, events } = await deployFailing(
      rental({ name: "exiter", envs: [{ name: "DB_PASSWORD", value: "s3cr3t-pw" }] }),
    );
    expect(st.message).toBe("container exiter exited with code 3");
    const last = events.at(-1)!;
    expect(last).toMatchObject({ reason: "ContainerFailed", exit_code: 3, new_status: "error" });
    expect(events.find((e: any) => e.reason === "Error")).toMatchObject({ exit_code: 3 });
    const text = await logs(w.uid, "?tail=1");
    expect(text).toMatch(/ fatal: authentication failed\n?$/);
    expect(await logs(w.uid)).toContain("connecting with password s3cr3t-pw");
  });

  it("crash_loop: restarts as events, the current container silent, the previous one with the lines", async () => {
    await stage({ name: "looper", failure: "crash_loop", restarts: 2, exit_code: 2 });
    const { w, st, events } = await deployFailing(rental({ name: "looper" }));
    expect(st.message).toBe("container looper restarted 2 times and keeps exiting (code 2)");
    expect(events.filter((e: any) => e.reason === "BackOff")).toHaveLength(3);
    expect(events.filter((e: any) => e.reason === "Started").map((e: any) => e.message)).toEqual([
      "started container looper",
      "started container looper (restart 1)",
      "started container looper (restart 2)",
    ]);
    expect(await logs(w.uid)).toBe("");
    expect(await logs(w.uid, "?previous=true")).toContain("DATABASE_URL is not set");
  });

  it("vm_boot: the serial console's lines, the qemu log apart, error BootFailed", async () => {
    await stage({ name: "novm", failure: "vm_boot" });
    const { w, st, events } = await deployFailing(vm({ name: "novm" }));
    expect(st.message).toBe("virtual machine novm did not boot");
    expect(events.at(-1)).toMatchObject({ reason: "BootFailed" });
    const serial = await logs(w.uid);
    expect(serial).toContain("[serial] Booting from Hard Disk...");
    expect(serial).toMatch(/Kernel panic - not syncing/);
    expect(serial).not.toContain("qemu-system");
    expect(await logs(w.uid, "?type=qemu")).toContain(
      "[qemu] qemu-system-x86_64: guest agent did not answer",
    );
  });

  it("never_ready: stays provisioning with a failing readiness probe and the container's lines", async () => {
    await stage({ name: "slow", failure: "never_ready" });
    const w = await create(s, rental({ name: "slow" }));
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    for (let i = 0; i < 100; i++) {
      const ev = await call(s, "GET", `/orgs/demo/workloads/${w.uid}/events`);
      if (ev.body.items.some((e: any) => e.reason === "Unhealthy")) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 100));
    expect((await call(s, "GET", `/orgs/demo/workloads/${w.uid}/state`)).body.status).toBe("provisioning");
    expect(await logs(w.uid)).toContain("waiting for database at db:5432 (attempt 2)");
  });

  it("a redeploy ends the staging: a rule cleared, the next deploy runs", async () => {
    await stage({ name: "later", failure: "never_ready" });
    const w = await create(s, rental({ name: "later" }));
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await adminCall(s, "DELETE", "/orgs/demo/provisioning");
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/suspend`);
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(s, w.uid, "running");
    expect(await logs(w.uid)).not.toContain("waiting for database");
  });

  it("refuses a rule that stages nothing sensible, naming the field", async () => {
    const r = await adminCall(s, "POST", "/orgs/demo/provisioning", { failure: "exit", outcome: "running" });
    expect(expectError(r, 400, "INVALID_BODY")).toContain("outcome must be error");
    const r2 = await adminCall(s, "POST", "/orgs/demo/provisioning", { outcome: "error", exit_code: 2 });
    expect(expectError(r2, 400, "INVALID_BODY")).toContain("exit_code is for a staged failure");
    const r3 = await adminCall(s, "POST", "/orgs/demo/provisioning", {});
    expect(expectError(r3, 400, "INVALID_BODY")).toContain("outcome is required");
  });
});
