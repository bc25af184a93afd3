/* eslint-disable @typescript-eslint/no-explicit-any */
// Snapshots of the whole server state (server/admin/snapshots.ts, state.ts): what they hold, in
// memory and in a data dir, across a restart; the format refusal; restores under concurrent
// requests.
import { describe, expect, it } from "vitest";
import { SNAPSHOT_FORMAT } from "../../server/admin/snapshots.ts";
import { FORMAT_VERSION } from "../../server/store/tables.ts";
import { admin, adminCall, call, expectError, OTHER_TOKEN } from "../helpers/http.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { create, createSshKey, createVolume, rental, vm, waitForStatus } from "./fixtures.ts";

const ORGS = [
  ["demo", undefined],
  ["other", OTHER_TOKEN],
] as const;

/** Every kind of state a snapshot holds, as the API and the admin API show it. */
async function everything(s: TestServer): Promise<Record<string, unknown>> {
  const out: Record<string, any> = {
    faults: (await admin<any>(s, "GET", "/faults")).items,
    inventory: (await admin<any>(s, "GET", "/inventory")).items,
  };
  for (const [org, token] of ORGS) {
    const resources = await admin<any>(s, "GET", `/orgs/${org}/resources`);
    const events: Record<string, unknown> = {};
    for (const w of resources.workloads)
      events[w.uid] = (
        await call(s, "GET", `/orgs/${org}/workloads/${w.uid}/events`, undefined, { token })
      ).body;
    const limit = await admin<any>(s, "GET", `/orgs/${org}/rate-limit`);
    out[org] = {
      resources,
      events,
      credits: (await admin<any>(s, "GET", `/orgs/${org}/credits`)).balance,
      rules: (await admin<any>(s, "GET", `/orgs/${org}/provisioning`)).items,
      rateLimit: { limit: limit.limit, source: limit.source, rate_limited: limit.rate_limited },
    };
  }
  return out;
}

/** Makes one of every kind of state in both orgs. */
async function populate(s: TestServer): Promise<void> {
  const key = await createSshKey(s, "k1");
  const vol = await createVolume(s, "data", 1024);
  const web = await create(s, rental({ volumes: [{ uid: vol, mount_path: "/data" }] }));
  expect((await call(s, "POST", `/orgs/demo/workloads/${web.uid}/deploy`)).status).toBe(200);
  await waitForStatus(s, web.uid, "running");
  await create(s, vm({ ssh_keys: [key] }));
  await call(s, "POST", "/orgs/demo/templates", {
    name: "t",
    type: "RENTAL",
    manifest: { type: "RENTAL", name: "a", image: "i", resource_name: "gpu-rental-small" },
  });
  await create(s, rental({ name: "theirs" }), "other", OTHER_TOKEN);
  await admin(s, "POST", "/orgs/demo/credits", { balance: 123.5 });
  await admin(s, "PUT", "/inventory/vm-standard", { capacity: 3 });
  await admin(s, "POST", "/faults", { path: "^/orgs/other/volumes$", method: "POST", status: 429, count: 2 });
  await admin(s, "POST", "/orgs/demo/provisioning", { name: "flaky", outcome: "error" });
  await admin(s, "PUT", "/orgs/other/rate-limit", { rps: 50, burst: 60 });
}

describe.each([
  ["in memory", false],
  ["with --data-dir", true],
] as const)("snapshots %s", (_label, dataDir) => {
  it("hold every kind of state a reset drops, and give it back after a reset (and a restart)", async () => {
    let s = await startTestServer({ dataDir: dataDir || undefined });
    try {
      const seed = await everything(s);
      await populate(s);
      const saved = await everything(s);
      const info = await admin<any>(s, "PUT", "/snapshots/full");
      expect(info).toMatchObject({ name: "full", format: SNAPSHOT_FORMAT, objects: expect.any(Number) });
      expect(info.objects).toBeGreaterThanOrEqual(6);

      // What reset drops is what the snapshot held: back to the seed, then back to the snapshot.
      await admin(s, "POST", "/reset");
      expect(await everything(s)).toEqual(seed);
      const r = await admin<any>(s, "POST", "/snapshots/full/restore");
      expect(r).toMatchObject({ status: "restored", snapshot: { name: "full" } });
      expect(await everything(s)).toEqual(saved);

      // Changes after a restore are the restored state's: the running workload still holds its
      // unit and runs on, the fault still fires, new events follow the old ones.
      const volume = { name: "v", size_in_mb: 1024, resource_name: "gpu-rental-small" };
      expectError(
        await call(s, "POST", "/orgs/other/volumes", volume, { token: OTHER_TOKEN }),
        429,
        "RATE_LIMITED",
      );
      expect((await admin<any>(s, "GET", "/snapshots")).items.map((i: any) => i.name)).toEqual(["full"]);

      if (dataDir) {
        await admin(s, "POST", "/reset");
        s = await s.restart();
        expect((await admin<any>(s, "GET", "/snapshots")).items).toMatchObject([{ name: "full" }]);
        await admin(s, "POST", "/snapshots/full/restore");
        expect(await everything(s)).toEqual(saved);
      }
    } finally {
      await s.close();
    }
  });
});

describe("snapshots", () => {
  it("refuse a bad name, an unknown snapshot, and one a newer server saved (nothing changes); convert an older data format", async () => {
    const s = await startTestServer();
    try {
      expect(expectError(await adminCall(s, "PUT", "/snapshots/-x"), 400, "ADMIN_INVALID")).toContain(
        "snapshot name must be 1-64 letters",
      );
      expectError(await adminCall(s, "POST", "/snapshots/nope/restore"), 404, "SNAPSHOT_NOT_FOUND");
      expectError(await adminCall(s, "DELETE", "/snapshots/nope"), 404, "SNAPSHOT_NOT_FOUND");

      await create(s, rental({ name: "before" }));
      await admin(s, "PUT", "/snapshots/base");
      const row = s.context.store.snapshots.get("base")!;
      const doc = JSON.parse(row.data);
      const put = (name: string, d: unknown) =>
        s.context.store.snapshots.put({ name, saved_at: row.saved_at, data: JSON.stringify(d) });
      put("newer", { ...doc, format: SNAPSHOT_FORMAT + 1, server_version: "9.9.9" });
      put("newer-data", {
        ...doc,
        parts: { ...doc.parts, store: { ...doc.parts.store, format: FORMAT_VERSION + 1 } },
      });
      // Data format 2 had no snapshots table: its rows are the same, brought to format 3 on restore.
      put("older-data", { ...doc, parts: { ...doc.parts, store: { ...doc.parts.store, format: 2 } } });

      await create(s, rental({ name: "after" }));
      const names = async () =>
        (await call(s, "GET", "/orgs/demo/workloads")).body.items.map((w: any) => w.name).sort();
      expect(await names()).toEqual(["after", "before"]);
      expect(
        expectError(await adminCall(s, "POST", "/snapshots/newer/restore"), 409, "SNAPSHOT_INCOMPATIBLE"),
      ).toBe(
        `snapshot newer cannot be restored by this server (cws-reference ${doc.server_version}): it was saved by cws-reference 9.9.9 in snapshot format ${SNAPSHOT_FORMAT + 1}; this server restores formats up to ${SNAPSHOT_FORMAT}. ` +
          "Restore it with the server that saved it or a newer one, or save the state again with this one.",
      );
      expect(
        expectError(
          await adminCall(s, "POST", "/snapshots/newer-data/restore"),
          409,
          "SNAPSHOT_INCOMPATIBLE",
        ),
      ).toContain(
        `its data format is ${FORMAT_VERSION + 1}; this server reads formats 1 to ${FORMAT_VERSION}`,
      );
      expect(await names()).toEqual(["after", "before"]);

      await admin(s, "POST", "/snapshots/older-data/restore");
      expect(await names()).toEqual(["before"]);
      await admin(s, "DELETE", "/snapshots/older-data");
      expect((await admin<any>(s, "GET", "/snapshots")).items.map((i: any) => i.name)).toEqual([
        "base",
        "newer",
        "newer-data",
      ]);
    } finally {
      await s.close();
    }
  });

  it("restore under concurrent requests: each answer is of the state before or after, never a mix", async () => {
    const s = await startTestServer({ dataDir: true });
    try {
      const make = async (prefix: string, n: number) => {
        for (let i = 0; i < n; i++) await create(s, rental({ name: `${prefix}-${i}` }));
        await admin(s, "POST", "/orgs/demo/credits", { balance: n });
      };
      await make("a", 12);
      await admin(s, "PUT", "/snapshots/a");
      await admin(s, "POST", "/reset");
      await make("b", 8);
      await admin(s, "PUT", "/snapshots/b");
      const list = async () => (await call(s, "GET", "/orgs/demo/workloads?limit=100")).body.items;
      const expected = { a: (await admin(s, "POST", "/snapshots/a/restore"), await list()) } as any;
      expected.b = (await admin(s, "POST", "/snapshots/b/restore"), await list());
      expect(expected.a).toHaveLength(12);
      expect(expected.b).toHaveLength(8);

      let stop = false;
      const seen = { a: 0, b: 0 };
      const readers = Array.from({ length: 4 }, async () => {
        while (!stop) {
          const items = await list();
          const which = items[0]?.name.startsWith("a-") ? "a" : "b";
          expect(items).toEqual(expected[which]);
          seen[which]++;
        }
      });
      for (let i = 0; i < 10; i++) await admin(s, "POST", `/snapshots/${i % 2 ? "b" : "a"}/restore`);
      stop = true;
      await Promise.all(readers);
      expect(seen.a).toBeGreaterThan(0);
      expect(seen.b).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});
