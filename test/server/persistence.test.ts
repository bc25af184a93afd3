/* eslint-disable @typescript-eslint/no-explicit-any */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED } from "../../server/index.ts";
import { call, create, rental, start, sshKey, waitForStatus } from "./helpers.ts";

const CLI = fileURLToPath(new URL("../../server/cli.ts", import.meta.url));
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
    const dataDir = tmp();
    const a = await start({ dataDir });
    const key = await sshKey(a, "kept");
    const w = await create(a, rental({ ssh_keys: [key] }));
    await call(a, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(a, w.uid, "running");
    const vol = (
      await call(a, "POST", "/orgs/demo/volumes", {
        name: "v",
        size_in_mb: 5,
        resource_name: "gpu-rental-small",
      })
    ).body.uid;
    await a.close();

    const b = await start({ dataDir });
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
    const dataDir = tmp();
    const a = await start({ dataDir, provisionDelayMs: 400 });
    const w = await create(a, rental());
    await call(a, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await a.close();
    const b = await start({ dataDir, provisionDelayMs: 400 });
    try {
      expect((await call(b, "GET", `/orgs/demo/workloads/${w.uid}/state`)).body.status).toBe("provisioning");
      await waitForStatus(b, w.uid, "running");
    } finally {
      await b.close();
    }
  });

  it("survives kill -9 of `cws serve` between requests", async () => {
    const dataDir = tmp();
    const serve = async (): Promise<{ proc: ChildProcess; base: string }> => {
      const proc = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data-dir", dataDir, "--quiet"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      const base = await new Promise<string>((resolve, reject) => {
        let err = "";
        proc.stderr!.on("data", (d: Buffer) => {
          err += d.toString();
          const m = /listening on (http:\/\/\S+\/v3)/.exec(err);
          if (m) resolve(m[1]!);
        });
        proc.on("exit", (code) => reject(new Error(`cws serve exited ${code}: ${err}`)));
      });
      return { proc, base };
    };
    const h = { authorization: "Bearer demo-token", "content-type": "application/json" };
    const first = await serve();
    const created = (await (
      await fetch(`${first.base}/orgs/demo/workloads`, {
        method: "POST",
        headers: h,
        body: JSON.stringify(rental()),
      })
    ).json()) as any;
    await fetch(`${first.base}/orgs/demo/workloads/${created.uid}/deploy`, { method: "POST", headers: h });
    const exited = new Promise((r) => first.proc.on("exit", r));
    first.proc.kill("SIGKILL");
    await exited;
    const second = await serve();
    try {
      const g = (await (
        await fetch(`${second.base}/orgs/demo/workloads/${created.uid}`, { headers: h })
      ).json()) as any;
      expect(g.uid).toBe(created.uid);
      expect(["provisioning", "running"]).toContain(g.state.status);
    } finally {
      second.proc.kill("SIGTERM");
    }
  });

  it("starts from a seed file instead of the built-in seed", async () => {
    const dir = tmp();
    const file = join(dir, "seed.json");
    writeFileSync(
      file,
      JSON.stringify({ ...DEFAULT_SEED, orgs: [{ slug: "acme", tokens: ["acme-token"], credits: 3 }] }),
    );
    const s = await start({ seed: file });
    try {
      expect((await call(s, "GET", "/orgs/acme/workloads", undefined, { token: "acme-token" })).status).toBe(
        200,
      );
      expect((await call(s, "GET", "/orgs/demo/workloads")).status).toBe(401);
    } finally {
      await s.close();
    }
    writeFileSync(file, JSON.stringify({ orgs: [] }));
    await expect(start({ seed: file })).rejects.toThrow(/seed file/);
  });
});
