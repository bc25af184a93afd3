// SSH keys, volumes, reusable templates, sandbox templates and the probes against the reference server.
import { describe, expect, it } from "vitest";
import {
  CwsAuthError,
  CwsConflictError,
  CwsNotFoundError,
  CwsValidationError,
  isNotFound,
} from "../../client/index.ts";
import { useTestServer } from "../helpers/server.ts";
import { sshKey } from "../helpers/ssh-keys.ts";
import { collect, rejection, testClient, uniq, useTestClient } from "./fixtures.ts";

const server = useTestServer();
const client = useTestClient(server);

describe("sshKeys", () => {
  it("create, get, update, delete", async () => {
    const k = await client.sshKeys.create({ name: uniq("laptop"), ssh_key: sshKey(1) });
    expect(k.public_key_raw).toBe(sshKey(1));
    expect((await client.sshKeys.get(k.uid)).name).toBe(k.name);
    expect((await client.sshKeys.update(k.uid, { name: "renamed" })).name).toBe("renamed");
    await client.sshKeys.delete(k.uid);
    const e = await rejection(client.sshKeys.get(k.uid), CwsNotFoundError);
    expect(e.reason).toBe("SSH_KEY_NOT_FOUND");
    expect(isNotFound(e)).toBe(true);
  });

  it("iterate follows next_cursor across pages (7 keys, pages of 3)", async () => {
    const other = testClient(server, { org: "other", token: "other-token" });
    const made: string[] = [];
    for (let i = 0; i < 7; i++)
      made.push((await other.sshKeys.create({ name: `k${i}`, ssh_key: sshKey(100 + i) })).uid);
    const first = await other.sshKeys.list({ limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.next_cursor).toBeTruthy();
    const pages: number[] = [];
    const seen = await collect(
      (async function* () {
        let cursor: string | undefined;
        do {
          const p = await other.sshKeys.list({ limit: 3, cursor });
          pages.push(p.items.length);
          yield* p.items;
          cursor = p.next_cursor || undefined;
        } while (cursor);
      })(),
    );
    expect(pages).toEqual([3, 3, 1]);
    const all = await collect(other.sshKeys.iterate({ limit: 3 }));
    expect(all.map((k) => k.uid)).toEqual(seen.map((k) => k.uid));
    expect(new Set(all.map((k) => k.uid))).toEqual(new Set(made));
    await other.close();
  });

  it("an invalid key is CwsValidationError", async () => {
    const e = await rejection(
      client.sshKeys.create({ name: "bad", ssh_key: "not a key" }),
      CwsValidationError,
    );
    expect(e.reason).toBe("SSH_KEY_INVALID");
  });
});

describe("volumes", () => {
  it("create, get, state, events, update, list, iterate, delete", async () => {
    const name = uniq("vol");
    const created = await client.volumes.create({
      name,
      size_in_mb: 2048,
      resource_name: "cpu-rental-small",
    });
    expect(created.state.status).toBe("registered");
    const v = await client.volumes.get(created.uid);
    expect(v).toMatchObject({ name, size: 2048, resource_name: "cpu-rental-small" });
    const st = await client.volumes.state(created.uid);
    expect(st).toMatchObject({ uid: created.uid, status: "registered" });
    const ev = await client.volumes.events(created.uid, { limit: 10 });
    expect(Array.isArray(ev.items)).toBe(true);
    expect(await collect(client.volumes.iterateEvents(created.uid))).toEqual(ev.items);
    expect((await client.volumes.update(created.uid, { name: `${name}-x` })).name).toBe(`${name}-x`);
    expect((await client.volumes.list({ limit: 1000 })).items.map((x) => x.uid)).toContain(created.uid);
    expect((await collect(client.volumes.iterate({ limit: 1 }))).map((x) => x.uid)).toContain(created.uid);
    await client.volumes.delete(created.uid);
    await rejection(client.volumes.get(created.uid), CwsNotFoundError);
  });

  it("a volume of another org is not visible", async () => {
    const v = await client.volumes.create({
      name: uniq("mine"),
      size_in_mb: 10,
      resource_name: "cpu-rental-small",
    });
    const other = testClient(server, { org: "other", token: "other-token" });
    await rejection(other.volumes.get(v.uid), CwsNotFoundError);
    await other.close();
  });
});

describe("templates (reusable workload templates)", () => {
  it("create, get, update, list, iterate, delete", async () => {
    const name = uniq("tpl");
    const manifest = { type: "RENTAL", name: "api", image: "nginx:1.27", resource_name: "cpu-rental-small" };
    const { uid } = await client.templates.create({ name, description: "d", type: "RENTAL", manifest });
    const t = await client.templates.get(uid);
    expect(t).toMatchObject({ uid, name, type: "RENTAL", manifest });
    expect((await client.templates.update(uid, { description: "changed" })).description).toBe("changed");
    const listed = await client.templates.list({ type: "RENTAL" });
    expect(listed.items.map((x) => x.uid)).toContain(uid);
    const all = await collect(client.templates.iterate({ limit: 1 }));
    expect(all.map((x) => x.uid)).toContain(uid);
    expect(all.map((x) => x.uid)).toContain("wtpl-nginx-public");
    await client.templates.delete(uid);
    await rejection(client.templates.get(uid), CwsNotFoundError);
  });

  it("a manifest whose type differs is CwsValidationError", async () => {
    await rejection(
      client.templates.create({
        name: uniq("bad"),
        type: "VM",
        manifest: { type: "RENTAL", name: "x", image: "i", resource_name: "r" },
      }),
      CwsValidationError,
    );
  });
});

describe("sandboxTemplates", () => {
  it("list, iterate, get; FRESH templates are read-only (CwsAuthError 403)", async () => {
    const page = await client.sandboxTemplates.list({ status: "READY" });
    expect(page.items.length).toBeGreaterThanOrEqual(2);
    const all = await collect(client.sandboxTemplates.iterate({ limit: 1, kind: "FRESH" }));
    expect(all.map((t) => t.uid)).toEqual(
      expect.arrayContaining(["tpl-ubuntu-headless", "tpl-ubuntu-desktop"]),
    );
    const t = await client.sandboxTemplates.get("tpl-ubuntu-headless");
    expect(t).toMatchObject({ kind: "FRESH", status: "READY" });
    const e = await rejection(
      client.sandboxTemplates.update(t.uid, { description: "mine now" }),
      CwsAuthError,
    );
    expect(e.status).toBe(403);
    expect(e.reason).toBe("SANDBOX_TEMPLATE_READ_ONLY");
    await rejection(client.sandboxTemplates.delete(t.uid), CwsAuthError);
    await rejection(client.sandboxTemplates.get("tpl-missing"), CwsNotFoundError);
  });

  it("waitForStatus returns at once for a READY template", async () => {
    const t = await client.sandboxTemplates.waitForStatus("tpl-ubuntu-headless", "READY", {
      timeoutMs: 1_000,
    });
    expect(t.status).toBe("READY");
  });
});

describe("meta", () => {
  it("health, ready, version, regions", async () => {
    expect((await client.meta.health()).status).toBeTruthy();
    expect((await client.meta.ready()).status).toBeTruthy();
    const v = await client.meta.version();
    expect(v.version).toBeTruthy();
    const regions = await client.meta.regions();
    expect(regions.map((r) => r.uid)).toEqual(expect.arrayContaining(["us-east-1", "eu-west-1"]));
  });
});

describe("authentication", () => {
  it("a wrong token is CwsAuthError 401; another org's token is refused", async () => {
    const bad = testClient(server, { token: "wrong-token" });
    const e = await rejection(bad.sshKeys.list(), CwsAuthError);
    expect(e.status).toBe(401);
    await bad.close();
    const cross = testClient(server, { org: "demo", token: "other-token" });
    const e2 = await rejection(cross.sshKeys.list(), CwsAuthError);
    expect([401, 403]).toContain(e2.status);
    await cross.close();
  });

  it("the probes need no token", async () => {
    const anon = testClient(server, { token: "wrong-token" });
    expect((await anon.meta.health()).status).toBeTruthy();
    await anon.close();
  });
});

describe("conflicts", () => {
  it("deleting an SSH key in use is CwsConflictError", async () => {
    const k = await client.sshKeys.create({ name: uniq("used"), ssh_key: sshKey(555) });
    await client.workloads.create({
      type: "RENTAL",
      name: uniq("user"),
      image: "nginx",
      resource_name: "cpu-rental-small",
      ssh_keys: [k.uid],
    });
    const e = await rejection(client.sshKeys.delete(k.uid), CwsConflictError);
    expect(e.reason).toBe("SSH_KEY_IN_USE");
  });
});
