import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sandbox, SshKey, Volume, Workload, WorkloadTemplate } from "../../sdk/index.ts";
import type { OfflineStack } from "../../scripts/offline-stack.ts";
import { api, cwsStack, liveResources, stateAsStored, testServer, type Server } from "../helpers/cws.ts";

const PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx e2e@cws";
const REGISTRY_PASSWORD = "registry-pass-9f3b2c";
const VM_PASSWORD = "vm-pass-71c0aa";

/** What the program declares; tests change it between runs. */
const params = { image: "nginx:1.27", resourceName: "gpu-rental-small", keyName: "e2e-key" };

function program() {
  const key = new SshKey("key", { name: params.keyName, publicKey: PUBLIC_KEY });
  const vol = new Volume("vol", { name: "e2e-data", sizeInMb: 512, resourceName: "gpu-rental-small" });
  const web = new Workload("web", {
    type: "RENTAL",
    name: "web",
    image: params.image,
    resourceName: params.resourceName,
    ports: [{ port: 8080 }],
    envs: [{ name: "A", value: "1" }],
    sshKeys: [key.uid],
    volumes: [{ uid: vol.uid, mountPath: "/data" }],
    registryAuth: { server: "registry.example.com", username: "ci", password: REGISTRY_PASSWORD },
  });
  const vm = new Workload("vm", {
    type: "VM",
    name: "vm",
    image: "ubuntu-22.04",
    resourceName: "vm-standard",
    vmConfig: { password: pulumi.secret(VM_PASSWORD) },
  });
  const tpl = new WorkloadTemplate("tpl", {
    name: "web-template",
    type: "RENTAL",
    manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
  });
  const box = new Sandbox("box", { name: "box", template: "tpl-ubuntu-headless", ttlSec: 3600 });
  return Promise.resolve({
    webUid: web.uid,
    webStatus: web.status,
    webRevision: web.revision,
    webUrls: web.urls,
    webCost: web.costPerHour,
    vmStatus: vm.status,
    vmIp: vm.publicIp,
    vmSshPort: vm.sshPort,
    volUid: vol.uid,
    volStatus: vol.status,
    keyUid: key.uid,
    tplUid: tpl.uid,
    boxUid: box.uid,
    boxStatus: box.status,
  });
}

describe("provider: all five resource kinds", () => {
  let server: Server & { stop(): Promise<void> };
  let s: OfflineStack;
  beforeAll(async () => {
    server = await testServer();
    s = await cwsStack(server, "five-kinds", program);
  });
  afterAll(async () => {
    await s?.cleanup();
    await server?.stop();
  });

  it("creates every kind with its outputs, then previews no changes", async () => {
    const up = await s.stack.up();
    expect(up.summary.result).toBe("succeeded");
    const o = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
    expect(o.webStatus).toBe("running");
    expect(o.webUrls).toEqual([expect.objectContaining({ port: 8080, url: expect.any(String) })]);
    expect(o.webCost).toBeGreaterThan(0);
    expect(o.vmStatus).toBe("running");
    expect(o.vmIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(o.vmSshPort).toEqual(expect.any(Number));
    expect(o.boxStatus).toBe("running");

    const live = await liveResources(server);
    expect(live.workloads.map((w) => w.uid).sort()).toEqual(
      [o.webUid, o.boxUid, live.workloads.find((w) => w.name === "vm")!.uid].sort(),
    );
    expect(live.volumes.map((v) => v.uid)).toEqual([o.volUid]);
    expect(live.ssh_keys.map((k) => k.uid)).toEqual([o.keyUid]);
    expect(live.templates.map((t) => t.uid)).toEqual([o.tplUid]);
    const web = await api<{ ssh_keys: string[]; volumes: { uid: string }[] }>(
      server,
      "GET",
      `/orgs/demo/workloads/${o.webUid}`,
    );
    expect(web.ssh_keys).toEqual([o.keyUid]);
    expect(web.volumes.map((v) => v.uid)).toEqual([o.volUid]);

    const preview = await s.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 7 });
  });

  it("keeps secrets out of `pulumi stack export` and the backend's files", async () => {
    const { exported, files } = stateAsStored(s);
    expect(exported).toContain("pulumi-nodejs:dynamic/cws:Workload");
    for (const text of [exported, files]) {
      expect(text).not.toContain(REGISTRY_PASSWORD);
      expect(text).not.toContain(VM_PASSWORD);
      expect(text).not.toContain("demo-token");
      expect(text).toContain("ciphertext");
    }
  });

  it("stores a small provider per resource: its type name, no code and no config", async () => {
    const state = await s.stack.exportStack();
    const providers = (state.deployment.resources as { type: string; inputs?: { __provider?: string } }[])
      .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/cws:"))
      .map((r) => r.inputs!.__provider!);
    expect(providers).toHaveLength(6);
    const largest = Math.max(...providers.map((p) => p.length));
    console.log(`serialized provider: ${largest} bytes at most`);
    expect(largest).toBeLessThan(4096);
    for (const p of providers) expect(p).toContain('require("pulumi-cws/provider/dynamic")');
  });

  it("updates a running RENTAL workload in place: same uid, new revision, running again", async () => {
    const before = (await s.stack.outputs()) as Record<string, { value: string }>;
    params.image = "nginx:1.28";
    const up = await s.stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(up.outputs.webUid.value).toBe(before.webUid!.value);
    expect(up.outputs.webRevision.value).not.toBe(before.webRevision!.value);
    expect(up.outputs.webStatus.value).toBe("running");
    const w = await api<{ image: string }>(server, "GET", `/orgs/demo/workloads/${before.webUid!.value}`);
    expect(w.image).toBe("nginx:1.28");
  });

  it("replaces a workload whose resourceName changes", async () => {
    const before = (await s.stack.outputs()).webUid!.value as string;
    params.resourceName = "gpu-rental-medium";
    const up = await s.stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(up.outputs.webUid.value).not.toBe(before);
    const old = await fetch(`${server.baseUrl}/orgs/demo/workloads/${before}`, {
      headers: { authorization: "Bearer demo-token" },
    });
    if (old.status === 200)
      expect(((await old.json()) as { state: { status: string } }).state.status).toBe("deleted");
    else expect(old.status).toBe(404);
  });

  it("shows drift made through the API in refresh, and up reverts it", async () => {
    const uid = (await s.stack.outputs()).webUid!.value as string;
    await api(server, "PATCH", `/orgs/demo/workloads/${uid}`, { image: "httpd:2.4" });
    const refresh = await s.stack.refresh();
    expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
    const preview = await s.stack.preview();
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    await s.stack.up();
    const w = await api<{ image: string }>(server, "GET", `/orgs/demo/workloads/${uid}`);
    expect(w.image).toBe(params.image);
  });

  it("drops a resource deleted on the service at refresh, and up recreates it", async () => {
    const keyUid = (await s.stack.outputs()).keyUid!.value as string;
    const volUid = (await s.stack.outputs()).volUid!.value as string;
    await api(server, "DELETE", `/orgs/demo/templates/${(await s.stack.outputs()).tplUid!.value}`);
    const refresh = await s.stack.refresh();
    expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });
    const up = await s.stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    expect((await liveResources(server)).templates).toHaveLength(1);
    expect(up.outputs.keyUid.value).toBe(keyUid);
    expect(up.outputs.volUid.value).toBe(volUid);
  });

  it("destroys everything, leaving nothing alive on the service", async () => {
    const destroy = await s.stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    const live = await liveResources(server);
    expect(live).toEqual({ workloads: [], volumes: [], ssh_keys: [], templates: [], sandbox_templates: [] });
  });
});
