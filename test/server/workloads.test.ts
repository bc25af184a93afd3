/* eslint-disable @typescript-eslint/no-explicit-any */
// Workloads through the API (WorkloadService in server/workloads/service.ts, server/workloads/checks.ts,
// server/workloads/routes.ts): registration and its rules, listing, PATCH, and one org never seeing
// another's.
import { describe, expect, it } from "vitest";
import { WorkloadOperation, Workload } from "../../api/index.ts";
import { call, expectError, OTHER_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, createSshKey, deployed, rental, vm, waitForStatus } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

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
    ["unknown resource", rental({ resource_name: "nope" }), 404, "WORKLOAD_RESOURCE_NOT_FOUND", "nope"],
    [
      "VM resource for RENTAL",
      rental({ resource_name: "vm-standard" }),
      404,
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
    ["unknown VM image", vm({ image: "windows-95" }), 404, "WORKLOAD_IMAGE_NOT_FOUND", "windows-95"],
    [
      "RENTAL with reservation",
      rental({ reservation_uid: "res-vm-1" }),
      400,
      "WORKLOAD_FIELD_UNSUPPORTED",
      "reservation_uid",
    ],
    ["unknown ssh key", rental({ ssh_keys: ["key-nope"] }), 404, "WORKLOAD_SSH_KEY_NOT_FOUND", "key-nope"],
    [
      "unknown volume",
      rental({ volumes: [{ uid: "vol-nope", mount_path: "/data" }] }),
      404,
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

  it("refuses an invalid limit or query with 400 INVALID_QUERY, an unknown cursor with 404", async () => {
    expectError(await call(s, "GET", "/orgs/demo/workloads?cursor=wl-unknown"), 404, "CURSOR_NOT_FOUND");
    for (const q of ["limit=0", "limit=abc", "limit=1.5", "limit=1001", "colour=red", "status=sleeping"]) {
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
      404,
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

describe("org isolation", () => {
  it("never shows one org's workloads to another", async () => {
    const w = await create(s, rental());
    expectError(
      await call(s, "GET", `/orgs/demo/workloads/${w.uid}`, undefined, { token: OTHER_TOKEN }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await call(s, "GET", "/orgs/demo/workloads", undefined, { token: OTHER_TOKEN }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await call(s, "GET", `/orgs/other/workloads/${w.uid}`, undefined, { token: OTHER_TOKEN }),
      404,
      "WORKLOAD_NOT_FOUND",
    );
    expect(
      (await call(s, "GET", "/orgs/other/workloads", undefined, { token: OTHER_TOKEN })).body.items,
    ).toEqual([]);
    expectError(
      await call(s, "DELETE", `/orgs/other/workloads/${w.uid}`, undefined, { token: OTHER_TOKEN }),
      404,
      "WORKLOAD_NOT_FOUND",
    );
    const key = await createSshKey(s, "other-key", OTHER_TOKEN, "other");
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", rental({ ssh_keys: [key] })),
      404,
      "WORKLOAD_SSH_KEY_NOT_FOUND",
    );
  });
});
