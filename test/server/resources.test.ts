/* eslint-disable @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SandboxTemplate, SshKey, Volume, VolumeEvent, Workload, WorkloadTemplate } from "../../api/index.ts";
import {
  OTHER,
  PUBLIC_KEY,
  adminCall,
  call,
  create,
  expectError,
  rental,
  start,
  sshKey,
  type TestServer,
} from "./helpers.ts";

let s: TestServer;
beforeAll(async () => {
  s = await start();
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await adminCall(s, "POST", "/reset");
});

const volBody = (over: Record<string, unknown> = {}) => ({
  name: "data",
  size_in_mb: 2048,
  resource_name: "gpu-rental-small",
  ...over,
});

describe("volumes", () => {
  it("creates a registered volume and reads it, its state and its events", async () => {
    const c = await call(s, "POST", "/orgs/demo/volumes", volBody());
    expect(c.status).toBe(201);
    expect(c.body).toEqual({
      uid: expect.any(String),
      state: { status: "registered", message: expect.any(String), updated_at: expect.any(String) },
    });
    const v = Volume.parse((await call(s, "GET", `/orgs/demo/volumes/${c.body.uid}`)).body);
    expect(v).toMatchObject({
      name: "data",
      size: 2048,
      resource_name: "gpu-rental-small",
      pvc_name: `pvc-${c.body.uid}`,
    });
    expect(v.cost_per_hour).toBeGreaterThan(0);
    const st = await call(s, "GET", `/orgs/demo/volumes/${c.body.uid}/state`);
    expect(st.body).toEqual({
      uid: c.body.uid,
      status: "registered",
      message: expect.any(String),
      updated_at: expect.any(String),
    });
    const ev = await call(s, "GET", `/orgs/demo/volumes/${c.body.uid}/events`);
    expect(ev.body.items.map((e: unknown) => VolumeEvent.parse(e))).toHaveLength(1);
    expect(ev.body.items[0]).toMatchObject({
      event_type: "CREATED",
      old_status: null,
      new_status: "registered",
    });
  });

  it.each([
    [{ size_in_mb: 0 }, "size_in_mb"],
    [{ size_in_mb: 1.5 }, "size_in_mb"],
    [{ name: "" }, "name"],
    [{ resource_name: undefined }, "resource_name"],
    [{ resource_name: "nope" }, "nope"],
    [{ resource_name: "vm-standard" }, "rental"],
    [{ extra: 1 }, "extra"],
  ])("refuses an invalid body %j with 400 VOLUME_INVALID", async (over, words) => {
    expect(
      expectError(await call(s, "POST", "/orgs/demo/volumes", volBody(over)), 400, "VOLUME_INVALID"),
    ).toContain(words);
  });

  it("renames, filters by workload, pages, and deletes (then 404)", async () => {
    const uids: string[] = [];
    for (let i = 0; i < 5; i++)
      uids.push((await call(s, "POST", "/orgs/demo/volumes", volBody({ name: `v${i}` }))).body.uid);
    const p = await call(s, "PATCH", `/orgs/demo/volumes/${uids[0]}`, { name: "renamed" });
    expect(p.body.name).toBe("renamed");
    expectError(await call(s, "PATCH", `/orgs/demo/volumes/${uids[0]}`, {}), 400, "VOLUME_INVALID");
    const page1 = await call(s, "GET", "/orgs/demo/volumes?limit=2");
    const page3 = await call(s, "GET", `/orgs/demo/volumes?limit=2&cursor=${uids[3]}`);
    expect(page1.body.items.map((v: any) => v.uid)).toEqual(uids.slice(0, 2));
    expect(page1.body.next_cursor).toBe(uids[1]);
    expect(page3.body).toMatchObject({ items: [{ uid: uids[4] }], next_cursor: null });
    expectError(await call(s, "GET", "/orgs/demo/volumes?cursor=vol-nope"), 400, "INVALID_QUERY");
    const w = await create(s, rental({ volumes: [{ uid: uids[2], mount_path: "/data" }] }));
    expect(
      (await call(s, "GET", `/orgs/demo/volumes?workload_uid=${w.uid}`)).body.items.map((v: any) => v.uid),
    ).toEqual([uids[2]]);
    expect((await call(s, "DELETE", `/orgs/demo/volumes/${uids[0]}`)).status).toBe(204);
    expectError(await call(s, "GET", `/orgs/demo/volumes/${uids[0]}`), 404, "VOLUME_NOT_FOUND");
    expectError(await call(s, "DELETE", `/orgs/demo/volumes/${uids[0]}`), 404, "VOLUME_NOT_FOUND");
    expectError(
      await call(s, "GET", `/orgs/demo/volumes/${uids[1]}`, undefined, { token: OTHER }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await call(s, "GET", `/orgs/other/volumes/${uids[1]}`, undefined, { token: OTHER }),
      404,
      "VOLUME_NOT_FOUND",
    );
  });
});

describe("SSH keys", () => {
  it("creates, reads, renames, lists and deletes a key", async () => {
    const c = await call(s, "POST", "/orgs/demo/ssh-keys", { name: "laptop", ssh_key: PUBLIC_KEY });
    expect(c.status).toBe(201);
    const k = SshKey.parse(c.body);
    expect(k.public_key_raw).toBe(PUBLIC_KEY);
    expect((await call(s, "PATCH", `/orgs/demo/ssh-keys/${k.uid}`, { name: "desk" })).body.name).toBe("desk");
    expect((await call(s, "GET", `/orgs/demo/ssh-keys/${k.uid}`)).body.name).toBe("desk");
    expect((await call(s, "GET", "/orgs/demo/ssh-keys")).body).toMatchObject({
      items: [{ uid: k.uid }],
      next_cursor: null,
    });
    expect((await call(s, "DELETE", `/orgs/demo/ssh-keys/${k.uid}`)).status).toBe(204);
    expectError(await call(s, "GET", `/orgs/demo/ssh-keys/${k.uid}`), 404, "SSH_KEY_NOT_FOUND");
    expectError(
      await call(s, "PATCH", `/orgs/demo/ssh-keys/${k.uid}`, { name: "x" }),
      404,
      "SSH_KEY_NOT_FOUND",
    );
  });

  it.each([
    ["not a key", "ssh_key"],
    ["ssh-dss AAAAB3NzaC1kc3MAAACBAP", "type"],
    ["ssh-ed25519 !!!notbase64", "base64"],
    ["ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx", "ssh-rsa"],
  ])("refuses the public key %j with 400 SSH_KEY_INVALID", async (key, words) => {
    expect(
      expectError(
        await call(s, "POST", "/orgs/demo/ssh-keys", { name: "k", ssh_key: key }),
        400,
        "SSH_KEY_INVALID",
      ),
    ).toContain(words);
  });

  it("pages keys and refuses a bad limit", async () => {
    for (let i = 0; i < 5; i++) await sshKey(s, `k${i}`);
    const p = await call(s, "GET", "/orgs/demo/ssh-keys?limit=2");
    expect(p.body.items).toHaveLength(2);
    const p2 = await call(s, "GET", `/orgs/demo/ssh-keys?limit=2&cursor=${p.body.next_cursor}`);
    const p3 = await call(s, "GET", `/orgs/demo/ssh-keys?limit=2&cursor=${p2.body.next_cursor}`);
    expect(p3.body.items.map((k: any) => k.name)).toEqual(["k4"]);
    expect(p3.body.next_cursor).toBeNull();
    expectError(await call(s, "GET", "/orgs/demo/ssh-keys?limit=0"), 400, "INVALID_QUERY");
  });
});

describe("workload templates", () => {
  const manifest = { type: "RENTAL", name: "web", image: "nginx:1.27", resource_name: "gpu-rental-small" };

  it("creates a PRIVATE template, reads it in full, lists with visibility, patches and deletes it", async () => {
    const c = await call(s, "POST", "/orgs/demo/templates", { name: "web", type: "RENTAL", manifest });
    expect(c.status).toBe(201);
    expect(Object.keys(c.body)).toEqual(["uid"]);
    const t = WorkloadTemplate.parse((await call(s, "GET", `/orgs/demo/templates/${c.body.uid}`)).body);
    expect(t).toMatchObject({ visibility: "PRIVATE", manifest, description: "" });
    expect(t.created_at).toEqual(expect.any(String));
    const all = (await call(s, "GET", "/orgs/demo/templates")).body.items.map((x: any) => x.visibility);
    expect(all.sort()).toEqual(["PRIVATE", "PUBLIC"]);
    expect((await call(s, "GET", "/orgs/demo/templates?visibility=PUBLIC")).body.items).toHaveLength(1);
    expect(
      (await call(s, "GET", "/orgs/demo/templates?visibility=PRIVATE")).body.items.map((x: any) => x.uid),
    ).toEqual([c.body.uid]);
    expect((await call(s, "GET", "/orgs/demo/templates?type=VM")).body.items).toEqual([]);
    const p = await call(s, "PATCH", `/orgs/demo/templates/${c.body.uid}`, {
      description: "d",
      manifest: { ...manifest, image: "nginx:1.28" },
    });
    expect(p.body).toMatchObject({ description: "d", manifest: { image: "nginx:1.28" } });
    expectError(
      await call(s, "GET", `/orgs/other/templates/${c.body.uid}`, undefined, { token: OTHER }),
      404,
      "TEMPLATE_NOT_FOUND",
    );
    expect((await call(s, "DELETE", `/orgs/demo/templates/${c.body.uid}`)).status).toBe(204);
    expectError(await call(s, "GET", `/orgs/demo/templates/${c.body.uid}`), 404, "TEMPLATE_NOT_FOUND");
  });

  it("validates the manifest as a create body whose type equals type, naming manifest.<field>", async () => {
    expect(
      expectError(
        await call(s, "POST", "/orgs/demo/templates", { name: "t", type: "VM", manifest }),
        400,
        "TEMPLATE_MANIFEST_INVALID",
      ),
    ).toContain("manifest.type");
    const bad = await call(s, "POST", "/orgs/demo/templates", {
      name: "t",
      type: "RENTAL",
      manifest: { ...manifest, name: "Bad Name" },
    });
    expect(expectError(bad, 400, "TEMPLATE_MANIFEST_INVALID")).toContain("manifest.name");
    const vmNoPass = await call(s, "POST", "/orgs/demo/templates", {
      name: "t",
      type: "VM",
      manifest: { type: "VM", name: "v", image: "ubuntu-22.04", resource_name: "vm-standard" },
    });
    expect(expectError(vmNoPass, 400, "TEMPLATE_MANIFEST_INVALID")).toContain("manifest.vm_config.password");
    expectError(
      await call(s, "POST", "/orgs/demo/templates", { type: "RENTAL", manifest }),
      400,
      "TEMPLATE_INVALID",
    );
    const t = (await call(s, "POST", "/orgs/demo/templates", { name: "t", type: "RENTAL", manifest })).body
      .uid;
    expectError(
      await call(s, "PATCH", `/orgs/demo/templates/${t}`, {
        manifest: { ...manifest, ports: [{ port: 1 }] },
      }),
      400,
      "TEMPLATE_MANIFEST_INVALID",
    );
  });

  it("keeps platform PUBLIC templates read-only and passwords out of manifests", async () => {
    expectError(await call(s, "DELETE", "/orgs/demo/templates/wtpl-nginx-public"), 403, "TEMPLATE_READ_ONLY");
    expectError(
      await call(s, "PATCH", "/orgs/demo/templates/wtpl-nginx-public", { name: "x" }),
      403,
      "TEMPLATE_READ_ONLY",
    );
    const c = await call(s, "POST", "/orgs/demo/templates", {
      name: "vm",
      type: "VM",
      manifest: {
        type: "VM",
        name: "v",
        image: "ubuntu-22.04",
        resource_name: "vm-standard",
        vm_config: { password: "hunter22" },
      },
    });
    const g = await call(s, "GET", `/orgs/demo/templates/${c.body.uid}`);
    expect(g.text).not.toContain("hunter22");
  });

  it("pages templates", async () => {
    for (let i = 0; i < 4; i++)
      await call(s, "POST", "/orgs/demo/templates", { name: `t${i}`, type: "RENTAL", manifest });
    const p1 = await call(s, "GET", "/orgs/demo/templates?limit=2");
    const p2 = await call(s, "GET", `/orgs/demo/templates?limit=2&cursor=${p1.body.next_cursor}`);
    const p3 = await call(s, "GET", `/orgs/demo/templates?limit=2&cursor=${p2.body.next_cursor}`);
    expect([...p1.body.items, ...p2.body.items, ...p3.body.items]).toHaveLength(5);
    expect(p3.body.next_cursor).toBeNull();
  });
});

describe("sandbox templates", () => {
  const addUser = (
    status: "PENDING" | "READY" | "FAILED",
    org = "demo",
    uid = `stpl-${status.toLowerCase()}-${org}`,
  ) => {
    const now = new Date().toISOString();
    s.context.store.sandboxTemplates.put({
      uid,
      org,
      name: uid,
      display_name: uid,
      description: "",
      kind: "USER",
      status,
      resource_name: "sandbox-small",
      cost_per_hour: 0.04,
      frozen_cost_per_hour: 0.004,
      desktop: false,
      created_at: now,
      updated_at: now,
    });
    return uid;
  };

  it("lists FRESH READY templates with kind and status filters", async () => {
    addUser("PENDING");
    addUser("READY", "other");
    const all = await call(s, "GET", "/orgs/demo/sandbox-templates");
    const items = all.body.items.map((t: unknown) => SandboxTemplate.parse(t));
    expect(items.map((t: any) => t.uid)).toEqual([
      "tpl-ubuntu-headless",
      "tpl-ubuntu-desktop",
      "stpl-pending-demo",
    ]);
    expect(all.text).not.toContain('desktop":');
    expect(
      (await call(s, "GET", "/orgs/demo/sandbox-templates?kind=USER")).body.items.map((t: any) => t.uid),
    ).toEqual(["stpl-pending-demo"]);
    expect((await call(s, "GET", "/orgs/demo/sandbox-templates?status=READY")).body.items).toHaveLength(2);
    const p = await call(s, "GET", "/orgs/demo/sandbox-templates?limit=2");
    expect(p.body.next_cursor).toBe("tpl-ubuntu-desktop");
    expectError(await call(s, "GET", "/orgs/demo/sandbox-templates?kind=OLD"), 400, "INVALID_QUERY");
    expectError(
      await call(s, "GET", "/orgs/demo/sandbox-templates/stpl-ready-other"),
      404,
      "SANDBOX_TEMPLATE_NOT_FOUND",
    );
  });

  it("patches USER templates only; FRESH gives 403", async () => {
    const u = addUser("READY");
    const p = await call(s, "PATCH", `/orgs/demo/sandbox-templates/${u}`, { display_name: "Mine" });
    expect(p.body.display_name).toBe("Mine");
    expectError(
      await call(s, "PATCH", `/orgs/demo/sandbox-templates/${u}`, {}),
      400,
      "SANDBOX_TEMPLATE_INVALID",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/sandbox-templates/${u}`, { display_name: "x".repeat(129) }),
      400,
      "SANDBOX_TEMPLATE_INVALID",
    );
    expectError(
      await call(s, "PATCH", "/orgs/demo/sandbox-templates/tpl-ubuntu-headless", { description: "x" }),
      403,
      "SANDBOX_TEMPLATE_READ_ONLY",
    );
  });

  it("deletes USER templates, not PENDING ones (409) nor FRESH ones (403)", async () => {
    const pending = addUser("PENDING");
    const ready = addUser("READY");
    expectError(
      await call(s, "DELETE", `/orgs/demo/sandbox-templates/${pending}`),
      409,
      "SANDBOX_TEMPLATE_PENDING",
    );
    expectError(
      await call(s, "DELETE", "/orgs/demo/sandbox-templates/tpl-ubuntu-headless"),
      403,
      "SANDBOX_TEMPLATE_READ_ONLY",
    );
    expect((await call(s, "DELETE", `/orgs/demo/sandbox-templates/${ready}`)).status).toBe(204);
    expectError(
      await call(s, "GET", `/orgs/demo/sandbox-templates/${ready}`),
      404,
      "SANDBOX_TEMPLATE_NOT_FOUND",
    );
  });
});

describe("sandbox workloads (without the sandbox runtime)", () => {
  const sandbox = (over: Record<string, unknown> = {}) => ({
    type: "SANDBOX",
    name: "box",
    image: "tpl-ubuntu-headless",
    ...over,
  });

  it("registers a sandbox from a READY template; the template fixes the shape", async () => {
    const c = await call(
      s,
      "POST",
      "/orgs/demo/workloads",
      sandbox({ sandbox_config: { ttl_sec: 3600, idle_timeout_sec: 600 }, ports: [{ port: 3000 }] }),
    );
    expect(c.status).toBe(201);
    expect(c.body.state.status).toBe("registered");
    expect(c.body.resource.name).toBe("sandbox-small");
    const w = Workload.parse((await call(s, "GET", `/orgs/demo/workloads/${c.body.uid}`)).body);
    expect(w.sandbox_config).toEqual({
      template_uid: "tpl-ubuntu-headless",
      ttl_sec: 3600,
      idle_timeout_sec: 600,
    });
    expect(w.frozen_cost_per_hour).toBe(0.004);
    expect(w.ports).toEqual([{ port: 3000, protocol: "TCP" }]);
  });

  it.each([
    ["an unknown template", { image: "tpl-nope" }, 404, "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND"],
    ["port 22", { ports: [{ port: 22 }] }, 400, "INVALID_BODY"],
    ["port routing", { ports: [{ port: 3000, routing: "DIRECT" }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    [
      "idle >= ttl",
      { sandbox_config: { ttl_sec: 60, idle_timeout_sec: 60 } },
      400,
      "WORKLOAD_SANDBOX_TIMEOUTS_INVALID",
    ],
    ["a trailing hyphen", { name: "box-" }, 400, "WORKLOAD_NAME_INVALID"],
    ["envs", { envs: [{ name: "A", value: "1" }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    ["a non-sandbox resource", { resource_name: "gpu-rental-small" }, 400, "WORKLOAD_RESOURCE_TYPE_MISMATCH"],
  ])("refuses a sandbox with %s", async (_l, over, status, reason) => {
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", sandbox(over)),
      status as number,
      reason as string,
    );
  });

  it("refuses a template that is not READY with 409", async () => {
    const now = new Date().toISOString();
    s.context.store.sandboxTemplates.put({
      uid: "stpl-pending",
      org: "demo",
      name: "p",
      display_name: "p",
      description: "",
      kind: "USER",
      status: "PENDING",
      resource_name: "sandbox-small",
      cost_per_hour: 0.04,
      frozen_cost_per_hour: 0.004,
      desktop: false,
      created_at: now,
      updated_at: now,
    });
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", sandbox({ image: "stpl-pending" })),
      409,
      "WORKLOAD_SANDBOX_TEMPLATE_NOT_READY",
    );
  });

  it("updates only name, project_id, ssh_keys, ports and timeouts, without redeploy", async () => {
    const c = (await call(s, "POST", "/orgs/demo/workloads", sandbox())).body;
    const key = await sshKey(s);
    const p = await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, {
      name: "box2",
      ssh_keys: [key],
      sandbox_config: { ttl_sec: 100 },
      project_id: "p",
    });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({
      name: "box2",
      ssh_keys: [key],
      project_id: "p",
      revision: c.revision,
      sandbox_config: { ttl_sec: 100, idle_timeout_sec: 0 },
    });
    for (const [field, body] of [
      ["image", { image: "tpl-ubuntu-desktop" }],
      ["envs", { envs: [] }],
      ["resource_name", { resource_name: "sandbox-small" }],
      ["sandbox_config.template_uid", { sandbox_config: { template_uid: "x" } }],
    ] as const) {
      expect(
        expectError(
          await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, body),
          400,
          "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD",
        ),
      ).toContain(field);
    }
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, { sandbox_config: { idle_timeout_sec: 200 } }),
      400,
      "WORKLOAD_SANDBOX_TIMEOUTS_INVALID",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, { ports: [{ port: 22 }] }),
      400,
      "INVALID_BODY",
    );
  });

  it("refuses suspend for a sandbox and deletes a registered one", async () => {
    const c = (await call(s, "POST", "/orgs/demo/workloads", sandbox())).body;
    expect((await call(s, "GET", `/orgs/demo/workloads/${c.uid}/state`)).body.status).toBe("registered");
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${c.uid}/suspend`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    expect((await call(s, "DELETE", `/orgs/demo/workloads/${c.uid}`)).status).toBe(204);
  });
});
