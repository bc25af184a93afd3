/**
 * The resource modules against the in-process reference server (no engine): what a program
 * removes is cleared on the service, lifecycle drift is read back, the change kinds are exact.
 */
import { describe, expect, it } from "vitest";
import type { Workload as WireWorkload } from "../../api/index.ts";
import { RESOURCES } from "../../provider/registry.ts";
import type { Props } from "../../provider/core/types.ts";
import { admin, api } from "../helpers/http.ts";
import { useProviderContext } from "../helpers/provider-context.ts";

const { Workload, Sandbox, SshKey } = RESOURCES as Required<typeof RESOURCES>;
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx mod@cws";

const { server, ctx } = useProviderContext();

const get = (uid: string) => api<WireWorkload>(server, "GET", `/orgs/demo/workloads/${uid}`);

describe("Workload module", () => {
  it("clears every removed input on the service, and refresh after it does not fail", async () => {
    const key = await SshKey!.create(ctx, { name: "mod-key", publicKey: KEY });
    const full: Props = {
      type: "RENTAL",
      name: "mod-web",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
      envs: [{ name: "A", value: "1" }],
      ports: [{ port: 8080 }],
      commands: ["nginx"],
      args: ["-g", "daemon off;"],
      registryAuth: { server: "r.example.com", username: "ci", password: "pw-123456" },
      sshKeys: [key.id],
      projectId: "proj-1",
      experiments: { "reserved-gpu": true },
    };
    const created = await Workload!.create(ctx, full);
    const before = await get(created.id);
    expect(before.registry_auth).toEqual({ server: "r.example.com", username: "ci" });

    const bare: Props = {
      type: "RENTAL",
      name: "mod-web2",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
    };
    const d = Workload!.diff(created.id, created.outputs, bare);
    expect(d.detail).toEqual({
      name: "update",
      envs: "redeploy",
      ports: "redeploy",
      commands: "redeploy",
      args: "redeploy",
      registryAuth: "redeploy",
      sshKeys: "redeploy",
      projectId: "update",
      experiments: "redeploy",
    });
    const outputs = await Workload!.update(ctx, created.id, created.outputs, bare);
    const after = await get(created.id);
    expect(after).toMatchObject({
      name: "mod-web2",
      envs: [],
      ports: [],
      commands: [],
      args: [],
      ssh_keys: [],
      experiments: {},
    });
    expect(after.registry_auth ?? undefined).toBeUndefined();
    expect(after.project_id ?? undefined).toBeUndefined();
    expect(after.state.status).toBe("running");
    expect(Workload!.diff(created.id, outputs, bare).changes).toBe(false);

    const read = await Workload!.read(ctx, created.id, outputs);
    expect(read!.inputs).not.toHaveProperty("registryAuth");
    expect(Workload!.diff(created.id, read!.outputs, bare).changes).toBe(false);
  });

  it("never reports an input the program did not set, and leaves it on the service", async () => {
    const inputs: Props = {
      type: "RENTAL",
      name: "mod-free",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
    };
    const { id, outputs } = await Workload!.create(ctx, inputs);
    await api(server, "PATCH", `/orgs/demo/workloads/${id}`, { envs: [{ name: "OUT", value: "side" }] });
    const read = await Workload!.read(ctx, id, outputs);
    expect(read!.inputs).not.toHaveProperty("envs");
    expect(Workload!.diff(id, read!.outputs, inputs).changes).toBe(false);
  });

  it("says redeploy only where the service redeploys: a registered workload updates", async () => {
    const inputs: Props = {
      type: "RENTAL",
      name: "mod-reg",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
      deploy: false,
    };
    const { id, outputs } = await Workload!.create(ctx, inputs);
    expect(outputs.status).toBe("registered");
    expect(Workload!.diff(id, outputs, { ...inputs, image: "nginx:1.28" }).detail).toEqual({
      image: "update",
    });
    const running = { ...outputs, status: "running", deploy: true };
    expect(Workload!.diff(id, running, { ...inputs, deploy: true, image: "nginx:1.28" }).detail).toEqual({
      image: "redeploy",
    });
  });

  it("reads a workload in error as not deployed, and update deploys it again", async () => {
    const inputs: Props = {
      type: "RENTAL",
      name: "mod-err",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
    };
    const { id, outputs } = await Workload!.create(ctx, inputs);
    await admin(server, "POST", "/orgs/demo/provisioning", {
      workload_uid: id,
      outcome: "error",
      message: "disk full",
    });
    await api(server, "POST", `/orgs/demo/workloads/${id}/suspend`);
    await api(server, "POST", `/orgs/demo/workloads/${id}/deploy`);
    await ctx.client.workloads.waitForStatus(id, "error", { timeoutMs: 5_000 }).catch(() => undefined);
    expect((await get(id)).state.status).toBe("error");
    await admin(server, "DELETE", "/orgs/demo/provisioning");

    const read = await Workload!.read(ctx, id, outputs);
    expect(read!.inputs.deploy).toBe(false);
    // Broken is drift: the preview names the redeploy that repairs it.
    expect(Workload!.diff(id, read!.outputs, inputs).detail).toEqual({
      deploy: "update",
      status: "redeploy",
    });
    const after = await Workload!.update(ctx, id, read!.outputs, inputs);
    expect(after.status).toBe("running");
    const healthy = await Workload!.read(ctx, id, after);
    expect(Workload!.diff(id, healthy!.outputs, inputs).changes).toBe(false);

    await api(server, "POST", `/orgs/demo/workloads/${id}/suspend`);
    const suspended = await Workload!.read(ctx, id, healthy!.outputs);
    expect(Workload!.diff(id, suspended!.outputs, inputs).detail).toEqual({ suspended: "update" });
  });

  it("refuses at diff a replacement that would adopt the object it replaces", async () => {
    const inputs: Props = {
      type: "RENTAL",
      name: "mod-adopt",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
      adoptUid: "wl-1",
    };
    expect(() => Workload!.diff("wl-1", inputs, { ...inputs, resourceName: "gpu-rental-medium" })).toThrow(
      /replacement would adopt wl-1 .*Remove adoptUid/,
    );
    expect(Workload!.diff("wl-1", inputs, { ...inputs, image: "x" }).replaces).toEqual([]);
  });
});

describe("Sandbox module", () => {
  it("changing ttlSec leaves an idleTimeoutSec the program does not set", async () => {
    const inputs: Props = { name: "mod-box", template: "tpl-ubuntu-headless", ttlSec: 3600 };
    const { id, outputs } = await Sandbox!.create(ctx, inputs);
    await api(server, "PATCH", `/orgs/demo/workloads/${id}`, { sandbox_config: { idle_timeout_sec: 600 } });
    const read = await Sandbox!.read(ctx, id, outputs);
    expect(read!.inputs).not.toHaveProperty("idleTimeoutSec");
    await Sandbox!.update(ctx, id, read!.outputs, { ...inputs, ttlSec: 7200 });
    expect((await get(id)).sandbox_config).toMatchObject({ ttl_sec: 7200, idle_timeout_sec: 600 });

    // Adoption checks the replace-only inputs: another template cannot be adopted into.
    await expect(
      Sandbox!.create(ctx, { name: "mod-box", template: "tpl-ubuntu-desktop", adoptUid: id }),
    ).rejects.toThrow(/cannot adopt sandbox .*template is "tpl-ubuntu-headless" on the service/);
    const adopted = await Sandbox!.create(ctx, {
      name: "mod-box2",
      template: "tpl-ubuntu-headless",
      adoptUid: id,
    });
    expect(adopted.id).toBe(id);
    expect((await get(id)).name).toBe("mod-box2");
    await Sandbox!.delete(ctx, id, {});
  });
});
