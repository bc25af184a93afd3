import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Sandbox,
  SshKey,
  Volume,
  Workload,
  WorkloadTemplate,
  getSandboxTemplates,
} from "../../../sdk/native/index.ts";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { api } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { liveResources, stateAsStored } from "../../helpers/stacks.ts";
import { events, nativeStack } from "../../helpers/native.ts";

const PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx e2e@cws";
const REGISTRY_PASSWORD = "registry-pass-native-4c1d";
const VM_PASSWORD = "vm-pass-native-88ab";

/** What the program declares; tests change it between runs. */
const params = { image: "nginx:1.27", boxName: "box" };

function program() {
  const key = new SshKey("key", { name: "native-key", publicKey: PUBLIC_KEY });
  const vol = new Volume("vol", { name: "native-data", sizeInMb: 512, resourceName: "gpu-rental-small" });
  const web = new Workload("web", {
    type: "RENTAL",
    name: "web",
    image: params.image,
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
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
    name: "native-template",
    type: "RENTAL",
    manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
  });
  const box = new Sandbox("box", { name: params.boxName, template: "tpl-ubuntu-headless", ttlSec: 3600 });
  const ready = getSandboxTemplates({ status: "READY" });
  return Promise.resolve({
    webUid: web.uid,
    webStatus: web.status,
    webRevision: web.revision,
    webUrls: web.urls,
    vmStatus: vm.status,
    volUid: vol.uid,
    keyUid: key.uid,
    tplUid: tpl.uid,
    boxUid: box.uid,
    boxStatus: box.status,
    readyTemplates: ready.then((r) => r.templates.map((t) => t.uid).sort()),
  });
}

describe("native plugin: every kind through pulumi-resource-cws", () => {
  let server: TestServer;
  let s: OfflineStack;
  beforeAll(async () => {
    // Deploys take long enough that the update's wait for running is always seen on the line.
    server = await startTestServer({ provisionDelayMs: 1500 });
    s = await nativeStack(server, "native-kinds", program);
  });
  afterAll(async () => {
    await s?.cleanup();
    await server?.close();
  });

  it("creates every kind as cws:index resources, answers a lookup, then previews no changes", async () => {
    const up = await s.stack.up();
    expect(up.summary.result).toBe("succeeded");
    const o = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
    expect(o.webStatus).toBe("running");
    expect(o.vmStatus).toBe("running");
    expect(o.boxStatus).toBe("running");
    expect(o.webUrls).toEqual([expect.objectContaining({ port: 8080 })]);

    const seeded = await api<{ items: { uid: string; status: string }[] }>(
      server,
      "GET",
      "/orgs/demo/sandbox-templates?status=READY",
    );
    expect(o.readyTemplates).toEqual(seeded.items.map((t) => t.uid).sort());
    expect(o.readyTemplates).toContain("tpl-ubuntu-headless");

    const live = await liveResources(server);
    expect(live.volumes.map((v) => v.uid)).toEqual([o.volUid]);
    expect(live.ssh_keys.map((k) => k.uid)).toEqual([o.keyUid]);
    expect(live.templates.map((t) => t.uid)).toEqual([o.tplUid]);

    const state = await s.stack.exportStack();
    const types = (state.deployment.resources as { type: string }[]).map((r) => r.type);
    expect(types).toEqual(
      expect.arrayContaining(["pulumi:providers:cws", "cws:index:Workload", "cws:index:Sandbox"]),
    );

    const preview = await s.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 7 });
  });

  it("keeps secrets out of `pulumi stack export` and the backend's files", async () => {
    const { exported, files } = stateAsStored(s);
    for (const text of [exported, files]) {
      expect(text).not.toContain(REGISTRY_PASSWORD);
      expect(text).not.toContain(VM_PASSWORD);
      expect(text).not.toContain("demo-token");
      expect(text).toContain("ciphertext");
    }
  });

  it("says at preview that an image change redeploys the workload and a sandbox rename does not", async () => {
    params.image = "nginx:1.28";
    params.boxName = "box-renamed";
    const ev = events();
    const preview = await s.stack.preview({ onEvent: ev.onEvent });
    expect(preview.changeSummary).toMatchObject({ update: 2 });
    expect(ev.detailedDiff("web")).toEqual({ image: "update" });
    expect(ev.detailedDiff("box")).toEqual({ name: "update" });
    expect(ev.diagnostics("web")).toContain("image changes: the service redeploys workload web (restart)");
    expect(ev.diagnostics("box")).toContain("name changes: updated in place, no redeploy");
    expect(ev.diagnostics("box").join("\n")).not.toContain("redeploys");
  });

  it("applies them in place: same uids, the workload redeployed and running, progress on its line", async () => {
    const before = (await s.stack.outputs()) as Record<string, { value: string }>;
    const ev = events();
    const up = await s.stack.up({ onEvent: ev.onEvent });
    expect(up.summary.resourceChanges).toMatchObject({ update: 2 });
    expect(up.outputs.webUid!.value).toBe(before.webUid!.value);
    expect(up.outputs.boxUid!.value).toBe(before.boxUid!.value);
    expect(up.outputs.webRevision!.value).not.toBe(before.webRevision!.value);
    expect(up.outputs.webStatus!.value).toBe("running");
    expect(ev.diagnostics("web").join("\n")).toMatch(/the service redeploys it/);
    expect(ev.diagnostics("web").join("\n")).toMatch(/waiting for workload \S+ to be running/);
    // Progress is on the resources' lines, never on the stack's.
    expect(ev.diagnostics("native-kinds-dev").join("\n")).not.toMatch(/deploying|redeploys|waiting for/);
    const box = await api<{ name: string }>(server, "GET", `/orgs/demo/workloads/${before.boxUid!.value}`);
    expect(box.name).toBe("box-renamed");
  });

  it("refresh finds drift made behind the program's back, and up brings it back", async () => {
    const uid = ((await s.stack.outputs()).webUid!.value as string) ?? "";
    expect((await s.stack.refresh()).summary.resourceChanges).toEqual({ same: 7 });
    await api(server, "PATCH", `/orgs/demo/workloads/${uid}`, { image: "nginx:1.29" });
    expect((await s.stack.refresh()).summary.resourceChanges).toMatchObject({ update: 1 });
    const ev = events();
    const preview = await s.stack.preview({ onEvent: ev.onEvent });
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    expect(ev.detailedDiff("web")).toEqual({ image: "update" });
    await s.stack.up();
    const w = await api<{ image: string }>(server, "GET", `/orgs/demo/workloads/${uid}`);
    expect(w.image).toBe("nginx:1.28");
  });

  it("destroys everything: the API is left empty", async () => {
    await s.stack.destroy();
    const live = await liveResources(server);
    expect(live.workloads.filter((w) => w.state?.status !== "deleted")).toEqual([]);
    expect(live.volumes).toEqual([]);
    expect(live.ssh_keys).toEqual([]);
    expect(live.templates).toEqual([]);
  });
});
