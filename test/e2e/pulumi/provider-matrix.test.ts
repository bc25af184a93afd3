/**
 * Every resource kind in one stack, through the real engine: every updatable input changed in
 * one up, API-side drift of every resource (and a workload put in `error`) shown by one refresh
 * and undone by one up, a replacement of an adopted resource refused at preview, every removable
 * input removed in one up and cleared on the service, then replacement, loss and destroy.
 *
 * One file of over 400 lines on purpose: it is one scenario list, run in order for each front end,
 * each step building on the stack and state the ones before it left; split, the steps would have
 * to build that stack again, or depend on the order of files.
 */
import * as pulumi from "@pulumi/pulumi";
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxTemplate, SshKey, Volume, Workload, WorkloadTemplate } from "../../../api/index.ts";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { admin, api } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { sshKey } from "../../helpers/ssh-keys.ts";
import { cwsStack, failureOf, liveResources, stateAsStored } from "../../helpers/stacks.ts";
import { FRONT_ENDS, type FrontEnd } from "../../helpers/front-ends.ts";

const PW = ["registry-pass-a1b2c3", "registry-pass-d4e5f6"];
const VM_PASSWORD = "vm-pass-71c0aa";
const KEYS = [sshKey(101), sshKey(102), sshKey(103), sshKey(104)];

type Phase = "first" | "changed" | "removed";

/** Each step runs a few engine operations; a loaded 2-core machine needs minutes for some. */
const STEP_MS = 300_000;

/** What the program declares; the scenario moves it from phase to phase. */
const p = {
  phase: "first" as Phase,
  adoptUid: "",
  adoptedKey: KEYS[2]!,
  webResource: "gpu-rental-small",
};

function program(fe: FrontEnd) {
  const { SshKey, Volume, Workload, Sandbox, SandboxTemplate, WorkloadTemplate } = fe.sdk;
  return async () => {
    const ch = p.phase !== "first";
    const set = p.phase !== "removed";
    const k1 = new SshKey("k1", { name: ch ? "mx-key-a2" : "mx-key-a", publicKey: KEYS[0]! });
    const k2 = new SshKey("k2", { name: "mx-key-b", publicKey: KEYS[1]! });
    const adopted = new SshKey("adopted", {
      name: "mx-adopted",
      publicKey: p.adoptedKey,
      adoptUid: p.adoptUid,
    });
    const vol = new Volume("vol", {
      name: ch ? "mx-data2" : "mx-data",
      sizeInMb: 512,
      resourceName: "gpu-rental-small",
    });
    const web = new Workload("web", {
      type: "RENTAL",
      name: ch ? "mx-web2" : "mx-web",
      image: ch ? "nginx:1.28" : "nginx:1.27",
      resourceName: p.webResource,
      ...(set && {
        envs: ch
          ? [
              { name: "A", value: "2" },
              { name: "B", value: "3" },
            ]
          : [{ name: "A", value: "1" }],
        ports: ch ? [{ port: 8080 }, { port: 9090, protocol: "UDP" as const }] : [{ port: 8080 }],
        commands: ch ? ["nginx2"] : ["nginx"],
        args: ch ? ["-x"] : ["-g", "daemon off;"],
        registryAuth: ch
          ? { server: "r2.example.com", username: "ci2", password: PW[1]! }
          : { server: "r.example.com", username: "ci", password: PW[0]! },
        sshKeys: ch ? [k1.uid, k2.uid] : [k1.uid],
        volumes: [{ uid: vol.uid, mountPath: ch ? "/data2" : "/data", ...(ch && { readOnly: true }) }],
        projectId: ch ? "proj-b" : "proj-a",
        experiments: ch ? { "reserved-gpu": false, "persistent-workload": true } : { "reserved-gpu": true },
      }),
    });
    const vm = new Workload("vm", {
      type: "VM",
      name: ch ? "mx-vm2" : "mx-vm",
      image: ch ? "ubuntu-24.04" : "ubuntu-22.04",
      resourceName: "vm-standard",
      vmConfig: { password: pulumi.secret(VM_PASSWORD) },
      ...(set && {
        ports: ch ? [{ port: 2222 }, { port: 3333, protocol: "UDP" as const }] : [{ port: 2222 }],
        sshKeys: ch ? [k2.uid] : [k1.uid],
        projectId: ch ? "proj-b" : "proj-a",
        experiments: ch ? { "reserved-gpu": true } : { "persistent-workload": true },
      }),
    });
    const box = new Sandbox("box", {
      name: ch ? "mx-box2" : "mx-box",
      template: "tpl-ubuntu-headless",
      ...(set && {
        ports: ch ? [{ port: 8001, protocol: "UDP" as const }] : [{ port: 8000 }],
        sshKeys: ch ? [k2.uid] : [k1.uid],
        ttlSec: ch ? 7200 : 3600,
        idleTimeoutSec: ch ? 900 : 600,
        projectId: ch ? "proj-b" : "proj-a",
      }),
    });
    const snap = new SandboxTemplate("snap", {
      name: "mx-snap",
      sourceSandbox: box.uid,
      ...(set && { displayName: ch ? "Snap B" : "Snap A", description: ch ? "second" : "first" }),
    });
    const tpl = new WorkloadTemplate("tpl", {
      name: ch ? "mx-tpl2" : "mx-tpl",
      type: "RENTAL",
      ...(set && { description: ch ? "second" : "first" }),
      manifest: { name: "web", image: ch ? "nginx:1.28" : "nginx:1.27", resourceName: "gpu-rental-small" },
    });
    return {
      k1: k1.uid,
      k2: k2.uid,
      adopted: adopted.uid,
      vol: vol.uid,
      web: web.uid,
      webStatus: web.status,
      vm: vm.uid,
      vmStatus: vm.status,
      box: box.uid,
      boxStatus: box.status,
      snap: snap.uid,
      tpl: tpl.uid,
    };
  };
}

/** The operation the engine planned per resource name (from a preview's or up's events). */
function opsOf(events: EngineEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) {
    const m = e.resourcePreEvent?.metadata;
    if (m && m.type !== "pulumi:pulumi:Stack" && !m.type.startsWith("pulumi:providers:"))
      out[m.urn.split("::").pop()!] = m.op;
  }
  return out;
}

describe.each(FRONT_ENDS)("provider matrix ($name front end)", (fe) => {
  let server: TestServer;
  let s: OfflineStack;
  let uid: Record<string, string> = {};
  const get = <T>(path: string) => api<T>(server, "GET", `/orgs/demo${path}`);
  const wl = (k: string) => get<Workload>(`/workloads/${uid[k]}`);

  beforeAll(async () => {
    Object.assign(p, { phase: "first", adoptedKey: KEYS[2]!, webResource: "gpu-rental-small" });
    server = await startTestServer({ provisionDelayMs: 20 });
    const existing = await api<SshKey>(server, "POST", "/orgs/demo/ssh-keys", {
      name: "mx-adopted",
      ssh_key: KEYS[2],
    });
    p.adoptUid = existing.uid;
    s = await cwsStack(server, `matrix-${fe.name}`, program(fe), {}, fe.env);
  }, STEP_MS);
  afterAll(async () => {
    await s?.cleanup();
    await server?.close();
  }, STEP_MS);

  /** The service holds what the "first" or "changed" program says. */
  async function expectService(phase: "first" | "changed") {
    const ch = phase === "changed";
    expect((await get<SshKey>(`/ssh-keys/${uid.k1}`)).name).toBe(ch ? "mx-key-a2" : "mx-key-a");
    expect((await get<Volume>(`/volumes/${uid.vol}`)).name).toBe(ch ? "mx-data2" : "mx-data");
    const web = await wl("web");
    expect(web).toMatchObject({
      name: ch ? "mx-web2" : "mx-web",
      image: ch ? "nginx:1.28" : "nginx:1.27",
      envs: ch
        ? [
            { name: "A", value: "2" },
            { name: "B", value: "3" },
          ]
        : [{ name: "A", value: "1" }],
      commands: ch ? ["nginx2"] : ["nginx"],
      args: ch ? ["-x"] : ["-g", "daemon off;"],
      registry_auth: ch
        ? { server: "r2.example.com", username: "ci2" }
        : { server: "r.example.com", username: "ci" },
      ssh_keys: ch ? [uid.k1, uid.k2] : [uid.k1],
      volumes: [{ uid: uid.vol, mount_path: ch ? "/data2" : "/data", read_only: ch }],
      project_id: ch ? "proj-b" : "proj-a",
      experiments: ch ? { "reserved-gpu": false, "persistent-workload": true } : { "reserved-gpu": true },
    });
    expect(web.ports.map((x) => [x.port, x.protocol])).toEqual(
      ch
        ? [
            [8080, "TCP"],
            [9090, "UDP"],
          ]
        : [[8080, "TCP"]],
    );
    expect(web.state.status).toBe("running");
    const vm = await wl("vm");
    expect(vm).toMatchObject({
      name: ch ? "mx-vm2" : "mx-vm",
      image: ch ? "ubuntu-24.04" : "ubuntu-22.04",
      ssh_keys: ch ? [uid.k2] : [uid.k1],
      project_id: ch ? "proj-b" : "proj-a",
      experiments: ch ? { "reserved-gpu": true } : { "persistent-workload": true },
    });
    expect(vm.ports.map((x) => x.port)).toEqual(ch ? [2222, 3333] : [2222]);
    expect(vm.state.status).toBe("running");
    const box = await wl("box");
    expect(box).toMatchObject({
      name: ch ? "mx-box2" : "mx-box",
      ssh_keys: ch ? [uid.k2] : [uid.k1],
      project_id: ch ? "proj-b" : "proj-a",
      sandbox_config: { ttl_sec: ch ? 7200 : 3600, idle_timeout_sec: ch ? 900 : 600 },
    });
    expect(box.ports.map((x) => [x.port, x.protocol])).toEqual(ch ? [[8001, "UDP"]] : [[8000, "TCP"]]);
    expect(box.state.status).toBe("running");
    expect(await get<SandboxTemplate>(`/sandbox-templates/${uid.snap}`)).toMatchObject({
      display_name: ch ? "Snap B" : "Snap A",
      description: ch ? "second" : "first",
      status: "READY",
    });
    expect(await get<WorkloadTemplate>(`/templates/${uid.tpl}`)).toMatchObject({
      name: ch ? "mx-tpl2" : "mx-tpl",
      description: ch ? "second" : "first",
      manifest: { image: ch ? "nginx:1.28" : "nginx:1.27" },
    });
  }

  it(
    "creates every kind, adopting the existing key; a second preview shows no change",
    async () => {
      const up = await s.stack.up();
      uid = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value as string]));
      expect(uid.adopted).toBe(p.adoptUid);
      expect(uid.webStatus).toBe("running");
      await expectService("first");
      const live = await liveResources(server);
      expect(live.workloads).toHaveLength(3);
      expect(live.ssh_keys).toHaveLength(3);
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 10 });
    },
    STEP_MS,
  );

  it(
    "keeps secrets out of `pulumi stack export` and the backend's files",
    async () => {
      const { exported, files } = stateAsStored(s);
      for (const text of [exported, files]) {
        for (const secret of [PW[0]!, VM_PASSWORD, "demo-token"]) expect(text).not.toContain(secret);
        expect(text).toContain("ciphertext");
      }
      if (fe.name === "dynamic") {
        // The provider stored per resource is one line naming its type, without code or config.
        const state = await s.stack.exportStack();
        const providers = (state.deployment.resources as { type: string; inputs?: { __provider?: string } }[])
          .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/cws:"))
          .map((r) => r.inputs!.__provider!);
        expect(providers).toHaveLength(9);
        for (const pr of providers)
          expect(pr).toMatch(
            /^exports\.handler=\(\)=>require\("pulumi-cws\/provider\/dynamic"\)\.provider\("\w+"\)$/,
          );
      }
    },
    STEP_MS,
  );

  it(
    "changes every updatable input in one up: preview plans updates only, up applies them",
    async () => {
      p.phase = "changed";
      const events: EngineEvent[] = [];
      const preview = await s.stack.preview({ onEvent: (e) => events.push(e) });
      expect(preview.changeSummary).toEqual({ update: 7, same: 3 });
      expect(opsOf(events)).toMatchObject({
        k1: "update",
        vol: "update",
        web: "update",
        vm: "update",
        box: "update",
        snap: "update",
        tpl: "update",
      });
      const revision = (await wl("web")).revision;
      const up = await s.stack.up();
      expect(up.summary.resourceChanges).toEqual({ update: 7, same: 3 });
      for (const k of ["web", "vm", "box", "snap", "tpl", "k1", "vol"])
        expect(up.outputs[k]!.value).toBe(uid[k]);
      await expectService("changed");
      expect((await wl("web")).revision).not.toBe(revision);
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 10 });
    },
    STEP_MS,
  );

  it(
    "shows API drift of every resource and a workload in error at refresh; up restores and runs it",
    async () => {
      const patch = (path: string, body: unknown) => api(server, "PATCH", `/orgs/demo${path}`, body);
      await patch(`/ssh-keys/${uid.k1}`, { name: "drift-key" });
      await patch(`/volumes/${uid.vol}`, { name: "drift-vol" });
      await patch(`/workloads/${uid.web}`, {
        image: "httpd:2.4",
        envs: [],
        ports: [{ port: 7070 }],
        commands: [],
        args: [],
        registry_auth: null,
        ssh_keys: [],
        volumes: [],
        project_id: "",
        experiments: {},
      });
      await patch(`/workloads/${uid.vm}`, {
        name: "drift-vm",
        ports: [],
        ssh_keys: [uid.k1],
        project_id: "x",
        experiments: {},
      });
      await patch(`/workloads/${uid.box}`, {
        name: "drift-box",
        ports: [],
        ssh_keys: [],
        sandbox_config: { ttl_sec: 0, idle_timeout_sec: 0 },
        project_id: "",
      });
      await patch(`/sandbox-templates/${uid.snap}`, { display_name: "drifted", description: "drifted" });
      await patch(`/templates/${uid.tpl}`, {
        name: "drift-tpl",
        description: "drifted",
        manifest: { type: "RENTAL", name: "web", image: "httpd:2.4", resource_name: "gpu-rental-small" },
      });
      // The service puts the workload in error on its next deploy.
      await admin(server, "POST", "/orgs/demo/provisioning", {
        workload_uid: uid.web,
        outcome: "error",
        message: "node lost",
      });
      await api(server, "POST", `/orgs/demo/workloads/${uid.web}/suspend`);
      await api(server, "POST", `/orgs/demo/workloads/${uid.web}/deploy`);
      for (let i = 0; i < 100 && (await wl("web")).state.status !== "error"; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect((await wl("web")).state.status).toBe("error");
      await admin(server, "DELETE", "/orgs/demo/provisioning");

      const refresh = await s.stack.refresh();
      expect(refresh.summary.resourceChanges).toEqual({ update: 7, same: 3 });
      expect((await s.stack.preview()).changeSummary).toEqual({ update: 7, same: 3 });
      await s.stack.up();
      await expectService("changed");
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 10 });
    },
    STEP_MS,
  );

  it(
    "refuses at preview a replacement that would adopt the object it replaces, deleting nothing",
    async () => {
      const before = await liveResources(server);
      p.adoptedKey = KEYS[3]!;
      const err = await failureOf(s.stack.preview());
      expect(err?.message).toContain(`the replacement would adopt ${p.adoptUid} (adoptUid)`);
      expect(err?.message).toContain("Remove adoptUid from the program");
      p.adoptedKey = KEYS[2]!;
      expect(await liveResources(server)).toEqual(before);
    },
    STEP_MS,
  );

  it(
    "removing every removable input clears it on the service; refresh after it neither fails nor drifts",
    async () => {
      p.phase = "removed";
      const preview = await s.stack.preview();
      expect(preview.changeSummary).toEqual({ update: 5, same: 5 });
      await s.stack.up();
      const web = await wl("web");
      expect(web).toMatchObject({
        envs: [],
        ports: [],
        commands: [],
        args: [],
        ssh_keys: [],
        volumes: [],
        experiments: {},
      });
      expect(web.registry_auth ?? undefined).toBeUndefined();
      expect(web.project_id ?? undefined).toBeUndefined();
      expect(web.state.status).toBe("running");
      const vm = await wl("vm");
      expect(vm).toMatchObject({ ports: [], ssh_keys: [], experiments: {} });
      expect(vm.project_id ?? undefined).toBeUndefined();
      const box = await wl("box");
      expect(box).toMatchObject({
        ports: [],
        ssh_keys: [],
        sandbox_config: { ttl_sec: 0, idle_timeout_sec: 0 },
      });
      expect(box.project_id ?? undefined).toBeUndefined();
      const snap = await get<SandboxTemplate>(`/sandbox-templates/${uid.snap}`);
      expect([snap.display_name || "", snap.description]).toEqual(["", ""]);
      expect((await get<WorkloadTemplate>(`/templates/${uid.tpl}`)).description).toBe("");

      const refresh = await s.stack.refresh();
      expect(refresh.summary.resourceChanges).toEqual({ same: 10 });
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 10 });
    },
    STEP_MS,
  );

  it(
    "drops what the service lost at refresh and recreates it; a replace-only change replaces",
    async () => {
      await api(server, "DELETE", `/orgs/demo/templates/${uid.tpl}`);
      const refresh = await s.stack.refresh();
      expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });
      p.webResource = "gpu-rental-medium";
      const up = await s.stack.up();
      expect(up.summary.resourceChanges).toMatchObject({ create: 1, replace: 1 });
      expect(up.outputs.web!.value).not.toBe(uid.web);
      const old = await fetch(`${server.baseUrl}/orgs/demo/workloads/${uid.web}`, {
        headers: { authorization: "Bearer demo-token" },
      });
      if (old.status === 200) expect(((await old.json()) as Workload).state.status).toBe("deleted");
      else expect(old.status).toBe(404);
      expect((await liveResources(server)).templates).toHaveLength(1);
    },
    STEP_MS,
  );

  it(
    "destroys everything, leaving nothing alive on the service",
    async () => {
      expect((await s.stack.destroy()).summary.result).toBe("succeeded");
      expect(await liveResources(server)).toEqual({
        workloads: [],
        volumes: [],
        ssh_keys: [],
        templates: [],
        sandbox_templates: [],
      });
    },
    STEP_MS,
  );
});
