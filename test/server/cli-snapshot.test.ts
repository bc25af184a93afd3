// `cws snapshot save|restore|list|delete` against a running server (server/cli/snapshot.ts).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { snapshotCommand } from "../../cli/cws-command.ts";
import { call } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, rental } from "./fixtures.ts";

const BIN = fileURLToPath(new URL("../../bin/cws", import.meta.url));

async function cws(args: string[]) {
  let stdout = "";
  let stderr = "";
  const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
  const code = await snapshotCommand(args, io, "(help)\n");
  return { code, stdout, stderr };
}

describe("cws snapshot", () => {
  const s = useTestServer({ adminToken: "adm" });
  const target = () => ["--url", s.origin, "--admin-token", "adm"];
  const names = async () =>
    (await call(s, "GET", "/orgs/demo/workloads")).body.items.map((w: { name: string }) => w.name);

  it("saves, lists, restores and deletes snapshots of a running server", async () => {
    expect((await cws(["list", ...target()])).stdout).toBe(
      `no snapshot saved on ${s.origin} (cws snapshot save NAME saves one)\n`,
    );
    await create(s, rental({ name: "one" }));
    const saved = await cws(["save", "ready", ...target()]);
    expect(saved).toMatchObject({ code: 0, stderr: "" });
    expect(saved.stdout).toMatch(
      new RegExp(`^${s.origin}: saved snapshot ready \\(\\d+ objects, [\\d.]+ KiB\\)\\n$`),
    );
    await create(s, rental({ name: "two" }));
    expect(await names()).toEqual(["one", "two"]);

    const restored = await cws(["restore", "ready", ...target()]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/: restored snapshot ready \(saved \S+, \d+ objects\) in [\d.]+ ms\n$/);
    expect(await names()).toEqual(["one"]);

    const table = (await cws(["list", ...target()])).stdout.trimEnd().split("\n");
    expect(table[0]).toMatch(/^NAME\s+SAVED AT\s+OBJECTS\s+SIZE\s+SERVER$/);
    expect(table.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(["ready"]);
    const json = JSON.parse((await cws(["list", "--json", ...target()])).stdout);
    expect(json).toMatchObject([{ name: "ready", format: 1 }]);

    expect((await cws(["delete", "ready", ...target()])).stdout).toBe(
      `${s.origin}: deleted snapshot ready\n`,
    );
    const gone = await cws(["restore", "ready", ...target()]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(
      "cws: POST /admin/snapshots/ready/restore failed with 404 (SNAPSHOT_NOT_FOUND: no snapshot named ready (cws snapshot list shows those saved))\n",
    );
  });

  it("refuses bad usage with status 2 (the real executable for one: what a shell sees)", async () => {
    let noName = { code: 0, stderr: "" };
    try {
      await promisify(execFile)(BIN, ["snapshot", "save", ...target()]);
    } catch (e) {
      noName = e as { code: number; stderr: string };
    }
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("cws: snapshot save needs a NAME");
    expect(await cws(["frobnicate"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        "cws: snapshot needs one of save, restore, list, delete (got 'frobnicate')",
      ),
    });
    expect(await cws(["list", "--org", "demo"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--org'"),
    });
    expect(await cws(["list", "extra"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("snapshot list takes no name"),
    });
    const badName = await cws(["save", "no/slash", ...target()]);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain("snapshot name must be 1-64 letters");
  });
});
