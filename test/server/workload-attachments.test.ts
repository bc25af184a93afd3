/* eslint-disable @typescript-eslint/no-explicit-any */
// Volumes and SSH keys attached to workloads (server/workloads/attachments.ts, server/workloads/volume-states.ts).
import { describe, expect, it } from "vitest";
import { call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, createSshKey, createVolume, deployed, rental, vm, waitForStatus } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

describe("volume and SSH key attachment", () => {
  it("attaches a volume to a RENTAL workload, provisions it with the deploy, detaches it", async () => {
    const vol = await createVolume(s, "data", 1024);
    const w = await create(s, rental());
    const a = await call(s, "PUT", `/orgs/demo/workloads/${w.uid}/volumes/${vol}`, {
      mount_path: "/data",
      read_only: false,
    });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ workload_uid: w.uid, volume_uid: vol, mount_path: "/data", read_only: false });
    expect((await call(s, "GET", `/orgs/demo/volumes/${vol}`)).body).toMatchObject({
      workload_uid: w.uid,
      mount_path: "/data",
      state: { status: "registered" },
    });
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(s, w.uid, "running");
    expect((await call(s, "GET", `/orgs/demo/volumes/${vol}/state`)).body.status).toBe("running");
    const other = await create(s, rental({ name: "other" }));
    expectError(
      await call(s, "PUT", `/orgs/demo/workloads/${other.uid}/volumes/${vol}`, { mount_path: "/d" }),
      409,
      "WORKLOAD_VOLUME_IN_USE",
    );
    expectError(
      await call(
        s,
        "POST",
        "/orgs/demo/workloads",
        rental({ name: "x", volumes: [{ uid: vol, mount_path: "/d" }] }),
      ),
      409,
      "WORKLOAD_VOLUME_IN_USE",
    );
    expectError(await call(s, "DELETE", `/orgs/demo/volumes/${vol}`), 409, "VOLUME_IN_USE");
    expect((await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}/volumes/${vol}`)).status).toBe(204);
    const v = await call(s, "GET", `/orgs/demo/volumes/${vol}`);
    expect(v.body.workload_uid).toBeUndefined();
    expect(v.body.state.status).toBe("registered");
    expectError(
      await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}/volumes/${vol}`),
      404,
      "WORKLOAD_VOLUME_NOT_ATTACHED",
    );
    expectError(
      await call(s, "PUT", `/orgs/demo/workloads/${w.uid}/volumes/vol-nope`, { mount_path: "/d" }),
      404,
      "VOLUME_NOT_FOUND",
    );
    expectError(
      await call(s, "PUT", `/orgs/demo/workloads/${w.uid}/volumes/${vol}`, { mount_path: "relative" }),
      400,
      "INVALID_BODY",
    );
    const vmw = await create(s, vm());
    expectError(
      await call(s, "PUT", `/orgs/demo/workloads/${vmw.uid}/volumes/${vol}`, { mount_path: "/d" }),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    const events = (await call(s, "GET", `/orgs/demo/volumes/${vol}/events`)).body.items;
    expect(
      events
        .filter((e: any) => e.event_type === "STATUS_CHANGE")
        .map((e: any) => [e.old_status, e.new_status]),
    ).toEqual([
      ["registered", "provisioning"],
      ["provisioning", "running"],
      ["running", "registered"],
    ]);
  });

  it("deleting a workload detaches its volumes", async () => {
    const vol = await createVolume(s, "data", 10);
    const w = await deployed(s, rental({ volumes: [{ uid: vol, mount_path: "/data" }] }));
    expect((await call(s, "GET", `/orgs/demo/volumes/${vol}`)).body.state.status).toBe("running");
    await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}`);
    const v = await call(s, "GET", `/orgs/demo/volumes/${vol}`);
    expect(v.body.state.status).toBe("registered");
    expect(v.body.workload_uid).toBeUndefined();
    expect((await call(s, "DELETE", `/orgs/demo/volumes/${vol}`)).status).toBe(204);
  });

  it("attaches and detaches SSH keys", async () => {
    const key = await createSshKey(s);
    const w = await create(s, vm());
    const a = await call(s, "PUT", `/orgs/demo/workloads/${w.uid}/ssh-keys/${key}`);
    expect(a.body).toEqual({ workload_uid: w.uid, ssh_key_uid: key });
    expect((await call(s, "GET", `/orgs/demo/workloads/${w.uid}`)).body.ssh_keys).toEqual([key]);
    expectError(await call(s, "DELETE", `/orgs/demo/ssh-keys/${key}`), 409, "SSH_KEY_IN_USE");
    expect((await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}/ssh-keys/${key}`)).status).toBe(204);
    expectError(
      await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}/ssh-keys/${key}`),
      404,
      "WORKLOAD_SSH_KEY_NOT_ATTACHED",
    );
    expectError(
      await call(s, "PUT", `/orgs/demo/workloads/${w.uid}/ssh-keys/key-nope`),
      404,
      "SSH_KEY_NOT_FOUND",
    );
    expect((await call(s, "DELETE", `/orgs/demo/ssh-keys/${key}`)).status).toBe(204);
  });
});
