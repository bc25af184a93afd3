/* eslint-disable @typescript-eslint/no-explicit-any */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED } from "../../server/index.ts";
import { call } from "../helpers/http.ts";
import { startTestServer } from "../helpers/server.ts";
import { create, createSshKey, createVolume, rental, waitForStatus } from "./fixtures.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "cws-data-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("persistence", () => {
  it("keeps state across a restart with the same data dir", async () => {
    const a = await startTestServer({ dataDir: true });
    const key = await createSshKey(a, "kept");
    const w = await create(a, rental({ ssh_keys: [key] }));
    await call(a, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(a, w.uid, "running");
    const vol = await createVolume(a, "v", 5);

    const b = await a.restart();
    try {
      const g = await call(b, "GET", `/orgs/demo/workloads/${w.uid}`);
      expect(g.body).toMatchObject({ uid: w.uid, ssh_keys: [key], state: { status: "running" } });
      expect((await call(b, "GET", `/orgs/demo/volumes/${vol}`)).status).toBe(200);
      expect((await call(b, "GET", `/orgs/demo/workloads/${w.uid}/events`)).body.items.length).toBe(3);
      // creation order and cursors survive too
      const w2 = await create(b, rental({ name: "after" }));
      expect((await call(b, "GET", "/orgs/demo/workloads")).body.items.map((x: any) => x.uid)).toEqual([
        w.uid,
        w2.uid,
      ]);
    } finally {
      await b.close();
    }
  });

  it("resumes provisioning after a restart: a workload left provisioning reaches running", async () => {
    const a = await startTestServer({ dataDir: true, provisionDelayMs: 400 });
    const w = await create(a, rental());
    await call(a, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    const b = await a.restart();
    try {
      expect((await call(b, "GET", `/orgs/demo/workloads/${w.uid}/state`)).body.status).toBe("provisioning");
      await waitForStatus(b, w.uid, "running");
    } finally {
      await b.close();
    }
  });

  it("survives kill -9 of `cws serve` between requests", async () => {
    const first = await startTestServer({ subprocess: true, dataDir: true });
    const created = (await call(first, "POST", "/orgs/demo/workloads", rental())).body;
    await call(first, "POST", `/orgs/demo/workloads/${created.uid}/deploy`);
    const exited = new Promise((r) => first.process.on("exit", r));
    first.process.kill("SIGKILL");
    await exited;
    const second = await first.restart();
    try {
      const g = (await call(second, "GET", `/orgs/demo/workloads/${created.uid}`)).body;
      expect(g.uid).toBe(created.uid);
      expect(["provisioning", "running"]).toContain(g.state.status);
    } finally {
      await second.close();
    }
  });

  it("starts from a seed file instead of the built-in seed", async () => {
    const dir = tmp();
    const file = join(dir, "seed.json");
    writeFileSync(
      file,
      JSON.stringify({ ...DEFAULT_SEED, orgs: [{ slug: "acme", tokens: ["acme-token"], credits: 3 }] }),
    );
    const s = await startTestServer({ seed: file });
    try {
      expect((await call(s, "GET", "/orgs/acme/workloads", undefined, { token: "acme-token" })).status).toBe(
        200,
      );
      expect((await call(s, "GET", "/orgs/demo/workloads")).status).toBe(401);
    } finally {
      await s.close();
    }
    writeFileSync(file, JSON.stringify({ orgs: [] }));
    await expect(startTestServer({ seed: file })).rejects.toThrow(/seed file/);
  });
});
