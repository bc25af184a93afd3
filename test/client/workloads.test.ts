// client.workloads against the in-process reference server: every route, the waiter, logs and exec streams.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { WorkloadCreate } from "../../api/index.ts";
import {
  CwsConflictError,
  CwsNotFoundError,
  CwsValidationError,
  CwsWaitTimeoutError,
  CwsWorkloadFailedError,
  hasReason,
} from "../../client/index.ts";
import { admin } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { sshKey } from "../helpers/ssh-keys.ts";
import { collect, rejection, uniq, useTestClient } from "./fixtures.ts";

const server = useTestServer({ provisionDelayMs: 30 });
const client = useTestClient(server);

const rental = (name: string): WorkloadCreate => ({
  type: "RENTAL",
  name,
  image: "nginx:1.27",
  resource_name: "cpu-rental-small",
  ports: [{ port: 8080 }],
  envs: [{ name: "MODE", value: "test" }],
});
const vm = (name: string): WorkloadCreate => ({
  type: "VM",
  name,
  image: "ubuntu-22.04",
  resource_name: "vm-standard",
  vm_config: { password: "s3cret-pw" },
});

async function running(body: WorkloadCreate): Promise<string> {
  const w = await client.workloads.create(body);
  await client.workloads.deploy(w.uid);
  await client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 5_000 });
  return w.uid;
}

describe("workloads: register, read, update, delete", () => {
  it("create registers without deploying", async () => {
    const w = await client.workloads.create(rental(uniq("web")));
    expect(w.uid).toBeTruthy();
    expect(w.type).toBe("RENTAL");
    expect(w.state.status).toBe("registered");
    expect(w.resource.name).toBe("cpu-rental-small");
  });

  it("get returns the full workload and update sets fields", async () => {
    const w = await client.workloads.create(rental(uniq("upd")));
    const full = await client.workloads.get(w.uid);
    expect(full.envs).toEqual([{ name: "MODE", value: "test" }]);
    expect(full.ports[0]!.port).toBe(8080);
    const updated = await client.workloads.update(w.uid, {
      envs: [{ name: "MODE", value: "prod" }],
      commands: ["nginx"],
    });
    expect(updated.envs).toEqual([{ name: "MODE", value: "prod" }]);
    expect(updated.commands).toEqual(["nginx"]);
    expect((await client.workloads.get(w.uid)).commands).toEqual(["nginx"]);
  });

  it("list returns one page with filters; iterate walks every page", async () => {
    const name = uniq("many");
    const uids = new Set<string>();
    for (let i = 0; i < 5; i++) uids.add((await client.workloads.create(rental(name))).uid);
    const page = await client.workloads.list({ name, limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).toBeTruthy();
    const all = await collect(client.workloads.iterate({ name, limit: 2 }));
    expect(new Set(all.map((w) => w.uid))).toEqual(uids);
    const vms = await collect(client.workloads.iterate({ type: "VM" }));
    expect(vms.every((w) => w.type === "VM")).toBe(true);
  });

  it("delete soft-deletes; get of an unknown uid is CwsNotFoundError", async () => {
    const w = await client.workloads.create(rental(uniq("del")));
    await client.workloads.delete(w.uid);
    expect((await client.workloads.state(w.uid)).status).toBe("deleted");
    expect((await client.workloads.get(w.uid)).state.status).toBe("deleted");
    await rejection(client.workloads.deploy(w.uid), CwsConflictError);
    const e = await rejection(client.workloads.get("wl-does-not-exist"), CwsNotFoundError);
    expect(e.reason).toBe("WORKLOAD_NOT_FOUND");
    expect(e.route).toBe("GET /orgs/{org}/workloads/{uid}");
    expect(e.path).toBe("/orgs/demo/workloads/wl-does-not-exist");
  });

  it("an invalid body is CwsValidationError with the service's reason", async () => {
    const e = await rejection(
      client.workloads.create({ ...rental("Not_Valid!"), name: "Not_Valid!" }),
      CwsValidationError,
    );
    expect(e.status).toBe(400);
    expect(e.reason).toBe("WORKLOAD_NAME_INVALID");
    expect(e.method).toBe("POST");
    expect(e.route).toBe("POST /orgs/{org}/workloads");
  });
});

describe("workloads: lifecycle", () => {
  it("deploy, state, waitForStatus running, suspend", async () => {
    const w = await client.workloads.create(rental(uniq("life")));
    const op = await client.workloads.deploy(w.uid);
    expect(["provisioning", "running"]).toContain(op.state.status);
    const st = await client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 5_000, pollMs: 10 });
    expect(st.status).toBe("running");
    expect(st.uid).toBe(w.uid);
    expect((await client.workloads.state(w.uid)).status).toBe("running");
    await client.workloads.suspend(w.uid);
    expect((await client.workloads.waitForStatus(w.uid, "suspended", { timeoutMs: 5_000 })).status).toBe(
      "suspended",
    );
  });

  it("deploying a running workload is CwsConflictError", async () => {
    const uid = await running(rental(uniq("twice")));
    const e = await rejection(client.workloads.deploy(uid), CwsConflictError);
    expect(e.status).toBe(409);
  });

  it("reboot works on a VM and is refused for RENTAL; suspend is refused for VM", async () => {
    const uid = await running(vm(uniq("vm")));
    await client.workloads.reboot(uid);
    await client.workloads.waitForStatus(uid, "running", { timeoutMs: 5_000 });
    await rejection(client.workloads.suspend(uid), CwsValidationError);
    const r = await running(rental(uniq("noreboot")));
    await rejection(client.workloads.reboot(r), CwsValidationError);
  });

  it("events: one page and iterateEvents over all of them", async () => {
    const uid = await running(rental(uniq("ev")));
    const page = await client.workloads.events(uid, { limit: 1 });
    expect(page.items.length).toBe(1);
    expect(page.items[0]!.workload_uid).toBe(uid);
    const all = await collect(client.workloads.iterateEvents(uid, { limit: 1 }));
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all.every((e) => e.workload_uid === uid)).toBe(true);
  });
});

describe("workloads: waitForStatus", () => {
  it("times out with the last status when provisioning takes too long", async () => {
    const name = uniq("slow");
    await admin(server, "POST", "/orgs/demo/provisioning", { name, outcome: "running", delay_ms: 60_000 });
    const w = await client.workloads.create(rental(name));
    await client.workloads.deploy(w.uid);
    const t0 = Date.now();
    const e = await rejection(
      client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 300 }),
      CwsWaitTimeoutError,
    );
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(e.lastStatus).toBe("provisioning");
    expect(e.uid).toBe(w.uid);
    expect(e.message).toMatch(/timed out after 300 ms .* to reach running \(last status: provisioning\)/);
  });

  it("fails fast with the service's message when the workload errors", async () => {
    const name = uniq("broken");
    await admin(server, "POST", "/orgs/demo/provisioning", {
      name,
      outcome: "error",
      delay_ms: 50,
      message: "image pull failed: nginx:1.27",
    });
    const w = await client.workloads.create(rental(name));
    await client.workloads.deploy(w.uid);
    const t0 = Date.now();
    const e = await rejection(
      client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 30_000 }),
      CwsWorkloadFailedError,
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(e.lastStatus).toBe("error");
    expect(e.serviceMessage).toContain("image pull failed");
    expect(e.message).toContain("image pull failed");
  });

  it("returns an error state when error is a target", async () => {
    const name = uniq("expected-err");
    await admin(server, "POST", "/orgs/demo/provisioning", {
      name,
      outcome: "error",
      delay_ms: 20,
      message: "boom",
    });
    const w = await client.workloads.create(rental(name));
    await client.workloads.deploy(w.uid);
    const st = await client.workloads.waitForStatus(w.uid, ["running", "error"], { timeoutMs: 5_000 });
    expect(st.status).toBe("error");
  });

  it("fails fast when the workload is unknown or deleted", async () => {
    await rejection(
      client.workloads.waitForStatus("wl-nope", "running", { timeoutMs: 5_000 }),
      CwsNotFoundError,
    );
    const w = await client.workloads.create(rental(uniq("gone")));
    await client.workloads.delete(w.uid);
    const e = await rejection(
      client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 5_000 }),
      CwsWorkloadFailedError,
    );
    expect(e.lastStatus).toBe("deleted");
  });

  it("honours the signal", async () => {
    const name = uniq("abort");
    await admin(server, "POST", "/orgs/demo/provisioning", { name, outcome: "running", delay_ms: 60_000 });
    const w = await client.workloads.create(rental(name));
    await client.workloads.deploy(w.uid);
    const e = await client.workloads
      .waitForStatus(w.uid, "running", { timeoutMs: 30_000, signal: AbortSignal.timeout(150) })
      .catch((x: unknown) => x);
    expect((e as Error).name).toBe("TimeoutError");
  });
});

describe("workloads: logs and exec", () => {
  it("logs returns text; followLogs streams and stops on break", async () => {
    const uid = await running(rental(uniq("logs")));
    const text = await client.workloads.logs(uid, { tail: 5 });
    expect(typeof text).toBe("string");
    expect(text.length).toBeGreaterThan(0);
    let got = "";
    for await (const chunk of client.workloads.followLogs(
      uid,
      { tail: 1 },
      { signal: AbortSignal.timeout(5_000) },
    )) {
      got += chunk;
      break;
    }
    expect(got.length).toBeGreaterThan(0);
    // the client is still usable after breaking out of a stream
    expect((await client.workloads.state(uid)).status).toBe("running");
  });

  it("followLogs ends with the signal's reason when aborted", async () => {
    const uid = await running(rental(uniq("follow")));
    const ac = new AbortController();
    const chunks: string[] = [];
    const e = await (async () => {
      for await (const c of client.workloads.followLogs(uid, {}, { signal: ac.signal })) {
        chunks.push(c);
        ac.abort();
      }
    })().catch((x: unknown) => x);
    expect(chunks.length).toBeGreaterThan(0);
    expect((e as Error).name).toBe("AbortError");
  });

  it("exec streams the command output of a RENTAL workload", async () => {
    const uid = await running(rental(uniq("exec")));
    const out = (await collect(client.workloads.exec(uid, ["echo", "hello from exec"]))).join("");
    expect(out).toContain("hello from exec");
  });

  it("exec is refused for other types; logs of an unknown workload are not found", async () => {
    const uid = await running(vm(uniq("vmexec")));
    const it1 = client.workloads.exec(uid, ["ls"]);
    await rejection(it1.next(), CwsValidationError);
    await rejection(client.workloads.logs("wl-missing"), CwsNotFoundError);
    expect(() => client.workloads.exec(uid, [])).toThrow(TypeError);
  });
});

describe("workloads: images, verify, volumes, ssh keys", () => {
  it("vmImages and bmImages list the catalogues", async () => {
    const vms = await client.workloads.vmImages();
    expect(vms.map((i) => i.name)).toContain("ubuntu-22.04");
    const bms = await client.workloads.bmImages();
    expect(bms.map((i) => i.name)).toContain("ubuntu-22.04-cuda");
    expect(bms[0]!.os_family).toBeTruthy();
  });

  it("verify answers verified true or false", async () => {
    const w = await client.workloads.create(rental(uniq("ver")));
    const digestOf = (s: string) => createHash("sha256").update(s).digest("hex");
    expect(await client.workloads.verify({ uid: w.uid, digest: digestOf("nginx:1.27") })).toEqual({
      verified: true,
    });
    expect(await client.workloads.verify({ uid: w.uid, digest: digestOf("something else") })).toEqual({
      verified: false,
    });
    await rejection(client.workloads.verify({ uid: w.uid, digest: "not-a-digest" }), CwsValidationError);
  });

  it("attachVolume and detachVolume", async () => {
    const w = await client.workloads.create(rental(uniq("vol")));
    const v = await client.volumes.create({
      name: uniq("data"),
      size_in_mb: 1024,
      resource_name: "cpu-rental-small",
    });
    const a = await client.workloads.attachVolume(w.uid, v.uid, { mount_path: "/data", read_only: true });
    expect(a).toEqual({ workload_uid: w.uid, volume_uid: v.uid, mount_path: "/data", read_only: true });
    expect((await client.workloads.get(w.uid)).volumes).toEqual([
      { uid: v.uid, mount_path: "/data", read_only: true },
    ]);
    await client.workloads.detachVolume(w.uid, v.uid);
    expect((await client.workloads.get(w.uid)).volumes).toEqual([]);
    await rejection(client.workloads.detachVolume(w.uid, v.uid), CwsNotFoundError);
  });

  it("attachSshKey and detachSshKey", async () => {
    const w = await client.workloads.create(rental(uniq("keys")));
    const k = await client.sshKeys.create({ name: uniq("key"), ssh_key: sshKey(9001) });
    expect(await client.workloads.attachSshKey(w.uid, k.uid)).toEqual({
      workload_uid: w.uid,
      ssh_key_uid: k.uid,
    });
    expect((await client.workloads.get(w.uid)).ssh_keys).toEqual([k.uid]);
    await client.workloads.detachSshKey(w.uid, k.uid);
    expect((await client.workloads.get(w.uid)).ssh_keys).toEqual([]);
    const e = await rejection(client.workloads.detachSshKey(w.uid, k.uid), CwsNotFoundError);
    expect(hasReason(e, "WORKLOAD_SSH_KEY_NOT_ATTACHED")).toBe(true);
  });
});
