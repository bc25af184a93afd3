/* eslint-disable @typescript-eslint/no-explicit-any */
// Volumes through the API (VolumeService in server/volumes/service.ts).
import { describe, expect, it } from "vitest";
import { Volume, VolumeEvent } from "../../api/index.ts";
import { call, expectError, OTHER_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, rental } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

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
    [{ resource_name: undefined }, "resource_name: is required"],
    [{ name: 5 }, "name: must be a string"],
    [{ size_in_mb: "ten" }, "size_in_mb: must be a number"],
    [{ extra: 1 }, "extra"],
  ])("refuses an invalid body %j with 400 VOLUME_INVALID", async (over, words) => {
    expect(
      expectError(await call(s, "POST", "/orgs/demo/volumes", volBody(over)), 400, "VOLUME_INVALID"),
    ).toContain(words);
  });

  it.each([
    [{ resource_name: "nope" }, "nope"],
    [{ resource_name: "vm-standard" }, "rental"],
  ])("answers a resource_name %j the inventory has no rental resource of with 404", async (over, words) => {
    const res = await call(s, "POST", "/orgs/demo/volumes", volBody(over));
    expect(expectError(res, 404, "VOLUME_RESOURCE_NOT_FOUND")).toContain(words);
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
    // next_cursor is opaque; following it continues after the last item of the page
    const page2 = await call(s, "GET", `/orgs/demo/volumes?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.items.map((v: any) => v.uid)).toEqual(uids.slice(2, 4));
    expect(page3.body).toMatchObject({ items: [{ uid: uids[4] }], next_cursor: null });
    expectError(await call(s, "GET", "/orgs/demo/volumes?cursor=vol-nope"), 404, "CURSOR_NOT_FOUND");
    const w = await create(s, rental({ volumes: [{ uid: uids[2], mount_path: "/data" }] }));
    expect(
      (await call(s, "GET", `/orgs/demo/volumes?workload_uid=${w.uid}`)).body.items.map((v: any) => v.uid),
    ).toEqual([uids[2]]);
    expect((await call(s, "DELETE", `/orgs/demo/volumes/${uids[0]}`)).status).toBe(204);
    expectError(await call(s, "GET", `/orgs/demo/volumes/${uids[0]}`), 404, "VOLUME_NOT_FOUND");
    expectError(await call(s, "DELETE", `/orgs/demo/volumes/${uids[0]}`), 404, "VOLUME_NOT_FOUND");
    expectError(
      await call(s, "GET", `/orgs/demo/volumes/${uids[1]}`, undefined, { token: OTHER_TOKEN }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await call(s, "GET", `/orgs/other/volumes/${uids[1]}`, undefined, { token: OTHER_TOKEN }),
      404,
      "VOLUME_NOT_FOUND",
    );
  });
});
