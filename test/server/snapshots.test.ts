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
