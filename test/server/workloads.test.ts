/* eslint-disable @typescript-eslint/no-explicit-any */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WorkloadOperation, Workload, WorkloadState, WorkloadEvent } from "../../api/index.ts";
import {
  OTHER,
  adminCall,
  call,
  create,
  deployed,
  expectError,
  rental,
  start,
  vm,
  waitForStatus,
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

describe("workload registration", () => {
  it("registers a RENTAL workload without deploying it, in the operation-response shape", async () => {
    const r = await call(s, "POST", "/orgs/demo/workloads", rental({ envs: [{ name: "A", value: "1" }] }));
    expect(r.status).toBe(201);
    const op = WorkloadOperation.parse(r.body);
    expect(op.state.status).toBe("registered");
    expect(op.cost_per_hour).toBe(0.8);
    expect(op.resource.name).toBe("gpu-rental-small");
    expect(op.revision).toMatch(/^[0-9a-f]{7}$/);
    await new Promise((r) => setTimeout(r, 60));
    expect((await call(s, "GET", `/orgs/demo/workloads/${op.uid}/state`)).body.status).toBe("registered");
  });

  it("returns the full workload on GET and never echoes passwords", async () => {
    const w = await create(
      s,
      rental({ registry_auth: { server: "r.example.com", username: "u", password: "reg-pass-123" } }),
    );
    const v = await create(s, vm());
    const g = await call(s, "GET", `/orgs/demo/workloads/${w.uid}`);
    const full = Workload.parse(g.body);
    expect(full.registry_auth).toEqual({ server: "r.example.com", username: "u" });
    expect(full.ports).toEqual([{ port: 8080, protocol: "TCP", routing: "PROXIED" }]);
    expect(g.text).not.toContain("reg-pass-123");
    const gv = await call(s, "GET", `/orgs/demo/workloads/${v.uid}`);
    expect(gv.text).not.toContain("secret-pass");
    expect(gv.body.vm_config).toBeUndefined();
  });

  it("rejects unknown fields and a missing body, naming the field", async () => {
    expect(
      expectError(
        await call(s, "POST", "/orgs/demo/workloads", rental({ colour: "red" })),
        400,
        "INVALID_BODY",
      ),
    ).toContain("colour");
    expect(
      expectError(await call(s, "POST", "/orgs/demo/workloads", { name: "x" }), 400, "INVALID_BODY"),
    ).toContain("type");
    expectError(await call(s, "POST", "/orgs/demo/workloads"), 400, "INVALID_BODY");
  });

  it.each([
    ["name with capitals", rental({ name: "Web" }), 400, "WORKLOAD_NAME_INVALID", "name"],
    ["name over 32 chars", rental({ name: "a".repeat(33) }), 400, "WORKLOAD_NAME_INVALID", "32"],
    ["port below 1024", rental({ ports: [{ port: 80 }] }), 400, "INVALID_BODY", "ports"],
    [
      "11 DIRECT ports",
      rental({ ports: Array.from({ length: 11 }, (_, i) => ({ port: 2000 + i, routing: "DIRECT" })) }),
      400,
      "WORKLOAD_DIRECT_PORTS_LIMIT",
      "DIRECT",
    ],
    ["RENTAL with region", rental({ region: "us-east-1" }), 400, "WORKLOAD_REGION_NOT_ALLOWED", "region"],
    [
      "RENTAL without resource_name",
      rental({ resource_name: undefined }),
      400,
      "WORKLOAD_FIELD_REQUIRED",
      "resource_name",
    ],
    ["unknown resource", rental({ resource_name: "nope" }), 400, "WORKLOAD_RESOURCE_NOT_FOUND", "nope"],
    [
      "VM resource for RENTAL",
      rental({ resource_name: "vm-standard" }),
      400,
      "WORKLOAD_RESOURCE_TYPE_MISMATCH",
      "vm-standard",
    ],
    [
      "VM without password",
      vm({ vm_config: undefined }),
      400,
      "WORKLOAD_FIELD_REQUIRED",
      "vm_config.password",
    ],
    ["VM short password", vm({ vm_config: { password: "abc" } }), 400, "INVALID_BODY", "vm_config.password"],
    ["VM with envs", vm({ envs: [{ name: "A", value: "1" }] }), 400, "WORKLOAD_FIELD_UNSUPPORTED", "envs"],
    [
      "VM with volumes",
      vm({ volumes: [{ uid: "x", mount_path: "/d" }] }),
      400,
      "WORKLOAD_FIELD_UNSUPPORTED",
      "volumes",
    ],
    [
      "VM SCTP port",
      vm({ ports: [{ port: 2000, protocol: "SCTP" }] }),
      400,
      "WORKLOAD_PORT_INVALID",
      "protocol",
    ],
    ["unknown VM image", vm({ image: "windows-95" }), 400, "WORKLOAD_IMAGE_NOT_FOUND", "windows-95"],
    [
      "RENTAL with reservation",
      rental({ reservation_uid: "res-vm-1" }),
      400,
      "WORKLOAD_FIELD_UNSUPPORTED",
      "reservation_uid",
    ],
    ["unknown ssh key", rental({ ssh_keys: ["key-nope"] }), 400, "WORKLOAD_SSH_KEY_NOT_FOUND", "key-nope"],
    [
      "unknown volume",
      rental({ volumes: [{ uid: "vol-nope", mount_path: "/data" }] }),
      400,
      "WORKLOAD_VOLUME_NOT_FOUND",
      "vol-nope",
    ],
    [
      "VM unknown reservation",
      vm({ reservation_uid: "res-nope" }),
      404,
      "WORKLOAD_RESERVATION_NOT_FOUND",
      "res-nope",
    ],
    [
      "VM expired reservation",
      vm({ reservation_uid: "res-expired" }),
      409,
      "WORKLOAD_RESERVATION_INVALID",
      "EXPIRED",
    ],
  ])("refuses %s", async (_label, body, status, reason, words) => {
    expect(
      expectError(await call(s, "POST", "/orgs/demo/workloads", body), status as number, reason as string),
    ).toContain(words);
  });

  it("binds an ACTIVE VM reservation once", async () => {
    const w = await create(s, vm({ reservation_uid: "res-vm-1" }));
    expect(w.reservation_uid).toBe("res-vm-1");
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", vm({ reservation_uid: "res-vm-1" })),
      409,
      "WORKLOAD_RESERVATION_INVALID",
    );
  });
});

describe("listing", () => {
  it("pages with limit and cursor in creation order, next_cursor null at the end", async () => {
    const uids: string[] = [];
    for (let i = 0; i < 5; i++) uids.push((await create(s, rental({ name: `w${i}` }))).uid);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await call(s, "GET", `/orgs/demo/workloads?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((w: any) => w.uid));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(uids);
    expect(pages).toBe(3);
    const last = await call(s, "GET", `/orgs/demo/workloads?limit=2&cursor=${uids[3]}`);
    expect(last.body).toEqual({ items: [expect.objectContaining({ uid: uids[4] })], next_cursor: null });
  });

  it("refuses an invalid limit or cursor with 400 INVALID_QUERY", async () => {
    for (const q of [
      "limit=0",
      "limit=abc",
      "limit=1.5",
      "limit=1001",
      "cursor=wl-unknown",
      "colour=red",
      "status=sleeping",
    ]) {
      expectError(await call(s, "GET", `/orgs/demo/workloads?${q}`), 400, "INVALID_QUERY");
    }
  });

  it("filters by type, name, project_id and status; deleted only when asked", async () => {
    const a = await create(s, rental({ name: "a", project_id: "p1" }));
    const b = await create(s, vm({ name: "b" }));
    await call(s, "DELETE", `/orgs/demo/workloads/${b.uid}`);
    const uidsOf = async (q: string) =>
      (await call(s, "GET", `/orgs/demo/workloads?${q}`)).body.items.map((w: any) => w.uid);
    expect(await uidsOf("")).toEqual([a.uid]);
    expect(await uidsOf("type=VM")).toEqual([]);
    expect(await uidsOf("status=deleted")).toEqual([b.uid]);
    expect(await uidsOf("project_id=p1")).toEqual([a.uid]);
    expect(await uidsOf("name=a")).toEqual([a.uid]);
    expect(await uidsOf("name=zzz")).toEqual([]);
  });
});

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
    const slow = await start({ provisionDelayMs: 1_000 });
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

describe("update", () => {
  it("redeploys a running RENTAL on PATCH: new revision, provisioning, then running", async () => {
    const w = await deployed(s, rental());
    const before = (await call(s, "GET", `/orgs/demo/workloads/${w.uid}`)).body;
    const p = await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, {
      image: "nginx:1.28",
      envs: [{ name: "B", value: "2" }],
    });
    expect(p.status).toBe(200);
    expect(p.body.image).toBe("nginx:1.28");
    expect(p.body.revision).not.toBe(before.revision);
    expect(p.body.state.status).toBe("provisioning");
    await waitForStatus(s, w.uid, "running");
    expect((await call(s, "GET", `/orgs/demo/workloads/${w.uid}`)).body.envs).toEqual([
      { name: "B", value: "2" },
    ]);
  });

  it("does not redeploy a registered workload, nor on a name-only change", async () => {
    const w = await create(s, rental());
    const p = await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { image: "nginx:1.28" });
    expect(p.body.state.status).toBe("registered");
    expect(p.body.revision).toBe(w.revision);
    const r = await deployed(s, rental({ name: "r2" }));
    const rev = (await call(s, "GET", `/orgs/demo/workloads/${r.uid}`)).body.revision;
    const n = await call(s, "PATCH", `/orgs/demo/workloads/${r.uid}`, { name: "renamed" });
    expect(n.body.state.status).toBe("running");
    expect(n.body.revision).toBe(rev);
  });

  it("re-validates the merged workload and removes the project with an empty project_id", async () => {
    const w = await create(s, vm({ project_id: "p1" }));
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { envs: [{ name: "A", value: "1" }] }),
      400,
      "WORKLOAD_FIELD_UNSUPPORTED",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { name: "Bad Name" }),
      400,
      "WORKLOAD_NAME_INVALID",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { image: "nope" }),
      400,
      "WORKLOAD_IMAGE_NOT_FOUND",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { resource_name: "vm-gpu" }),
      400,
      "INVALID_BODY",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { sandbox_config: { ttl_sec: 5 } }),
      400,
      "WORKLOAD_FIELD_UNSUPPORTED",
    );
    const p = await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { project_id: "" });
    expect(p.body.project_id).toBeNull();
  });
});

describe("bare metal", () => {
  it.each([
    ["without region", { region: undefined }, 400, "WORKLOAD_BM_REGION_REQUIRED"],
    ["with an invalid region slug", { region: "US_EAST" }, 400, "WORKLOAD_BM_REGION_INVALID"],
    ["without SSH keys", { ssh_keys: [] }, 400, "WORKLOAD_BM_SSH_KEYS_REQUIRED"],
    ["with an invalid hostname", { bm_config: { hostname: "-bad-" } }, 400, "WORKLOAD_BM_HOSTNAME_INVALID"],
    ["in an inactive region", { region: "ap-south-1" }, 409, "WORKLOAD_BM_REGION_NOT_FOUND"],
    ["in an unknown region", { region: "mars-1" }, 409, "WORKLOAD_BM_REGION_NOT_FOUND"],
    ["with an unknown image", { image: "beos" }, 404, "WORKLOAD_BM_TARGET_NOT_FOUND"],
    ["with an unknown reservation", { reservation_uid: "res-nope" }, 404, "WORKLOAD_BM_TARGET_NOT_FOUND"],
    [
      "with another org's reservation",
      { reservation_uid: "res-other-bm" },
      404,
      "WORKLOAD_BM_TARGET_NOT_FOUND",
    ],
    [
      "with a reservation in another region",
      { reservation_uid: "res-bm-euw1" },
      409,
      "WORKLOAD_BM_RESERVATION_REGION_MISMATCH",
    ],
    ["with envs", { envs: [{ name: "A", value: "1" }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    ["with ports", { ports: [{ port: 2000 }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    ["with experiments", { experiments: { "reserved-gpu": true } }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
  ])("refuses a BM workload %s", async (_l, over, status, reason) => {
    const body = await (await import("./helpers.ts")).bm(s, over);
    expectError(await call(s, "POST", "/orgs/demo/workloads", body), status as number, reason as string);
  });

  it("claims region-scoped capacity in one attempt: 409 WORKLOAD_BM_CLAIM_CONFLICT, nothing claimed", async () => {
    const { bm } = await import("./helpers.ts");
    const a = await create(s, await bm(s, { name: "a" }));
    const b = await create(s, await bm(s, { name: "b" }));
    const c = await create(s, await bm(s, { name: "c" }));
    const eu = await create(s, await bm(s, { name: "eu", region: "eu-west-1" }));
    expect((await call(s, "POST", `/orgs/demo/workloads/${a.uid}/deploy`)).status).toBe(200);
    expect((await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`)).status).toBe(200);
    expect(
      expectError(
        await call(s, "POST", `/orgs/demo/workloads/${c.uid}/deploy`),
        409,
        "WORKLOAD_BM_CLAIM_CONFLICT",
      ),
    ).toContain("nothing was claimed");
    expect((await call(s, "GET", `/orgs/demo/workloads/${c.uid}/state`)).body.status).toBe("registered");
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${eu.uid}/deploy`),
      409,
      "WORKLOAD_BM_CLAIM_CONFLICT",
    );
    // reservations bypass the shared pool
    const r = await create(s, await bm(s, { name: "reserved", reservation_uid: "res-bm-use1" }));
    expect((await call(s, "POST", `/orgs/demo/workloads/${r.uid}/deploy`)).status).toBe(200);
    // deleting frees capacity
    await call(s, "DELETE", `/orgs/demo/workloads/${a.uid}`);
    expect((await call(s, "POST", `/orgs/demo/workloads/${c.uid}/deploy`)).status).toBe(200);
    const g = await call(s, "GET", `/orgs/demo/workloads/${c.uid}`);
    expect(g.body.bm_config).toEqual({ region: "us-east-1", hostname: "c" });
  });

  it("refuses reboot and suspend for BM, and keeps at least one SSH key", async () => {
    const { bm } = await import("./helpers.ts");
    const body = await bm(s);
    const w = await create(s, body);
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/reboot`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/suspend`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    expectError(
      await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}/ssh-keys/${(body.ssh_keys as string[])[0]}`),
      400,
      "WORKLOAD_BM_SSH_KEYS_REQUIRED",
    );
  });
});

describe("capacity and credits", () => {
  it("refuses a deploy beyond inventory capacity with 409 WORKLOAD_NO_CAPACITY, until capacity is freed", async () => {
    const a = await create(s, rental({ name: "a", resource_name: "gpu-rental-large" }));
    const b = await create(s, rental({ name: "b", resource_name: "gpu-rental-large" }));
    await call(s, "POST", `/orgs/demo/workloads/${a.uid}/deploy`);
    expectError(await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`), 409, "WORKLOAD_NO_CAPACITY");
    await waitForStatus(s, a.uid, "running");
    await call(s, "POST", `/orgs/demo/workloads/${a.uid}/suspend`);
    expect((await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`)).status).toBe(200);
  });

  it("refuses a deploy when the org's credits are below one hour of cost", async () => {
    const w = await create(s, rental());
    await adminCall(s, "POST", "/orgs/demo/credits", { balance: 0.5 });
    expect(
      expectError(
        await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`),
        409,
        "WORKLOAD_INSUFFICIENT_CREDITS",
      ),
    ).toContain("0.8");
    await adminCall(s, "POST", "/orgs/demo/credits", { balance: 10 });
    expect((await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`)).status).toBe(200);
  });
});

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
      400,
      "INVALID_QUERY",
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

describe("volume and SSH key attachment", () => {
  it("attaches a volume to a RENTAL workload, provisions it with the deploy, detaches it", async () => {
    const vol = (
      await call(s, "POST", "/orgs/demo/volumes", {
        name: "data",
        size_in_mb: 1024,
        resource_name: "gpu-rental-small",
      })
    ).body.uid;
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
    const vol = (
      await call(s, "POST", "/orgs/demo/volumes", {
        name: "data",
        size_in_mb: 10,
        resource_name: "gpu-rental-small",
      })
    ).body.uid;
    const w = await deployed(s, rental({ volumes: [{ uid: vol, mount_path: "/data" }] }));
    expect((await call(s, "GET", `/orgs/demo/volumes/${vol}`)).body.state.status).toBe("running");
    await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}`);
    const v = await call(s, "GET", `/orgs/demo/volumes/${vol}`);
    expect(v.body.state.status).toBe("registered");
    expect(v.body.workload_uid).toBeUndefined();
    expect((await call(s, "DELETE", `/orgs/demo/volumes/${vol}`)).status).toBe(204);
  });

  it("attaches and detaches SSH keys", async () => {
    const key = await sshKey(s);
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

describe("org isolation", () => {
  it("never shows one org's workloads to another", async () => {
    const w = await create(s, rental());
    expectError(
      await call(s, "GET", `/orgs/demo/workloads/${w.uid}`, undefined, { token: OTHER }),
      403,
      "FORBIDDEN",
    );
    expectError(await call(s, "GET", "/orgs/demo/workloads", undefined, { token: OTHER }), 403, "FORBIDDEN");
    expectError(
      await call(s, "GET", `/orgs/other/workloads/${w.uid}`, undefined, { token: OTHER }),
      404,
      "WORKLOAD_NOT_FOUND",
    );
    expect((await call(s, "GET", "/orgs/other/workloads", undefined, { token: OTHER })).body.items).toEqual(
      [],
    );
    expectError(
      await call(s, "DELETE", `/orgs/other/workloads/${w.uid}`, undefined, { token: OTHER }),
      404,
      "WORKLOAD_NOT_FOUND",
    );
    const key = await sshKey(s, "other-key", OTHER, "other");
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", rental({ ssh_keys: [key] })),
      400,
      "WORKLOAD_SSH_KEY_NOT_FOUND",
    );
  });
});
