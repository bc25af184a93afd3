// client.sandboxes against the reference server: errors before deploy, then every operation on a
// real sandbox (exec, files, tickets, terminals over WebSocket, desktop, freeze/thaw, fork, publish).
import { beforeAll, describe, expect, it } from "vitest";
import {
  CwsApiError,
  CwsConflictError,
  CwsNotFoundError,
  CwsValidationError,
  hasReason,
} from "../../client/index.ts";
import { readUntil } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { sshKey } from "../helpers/ssh-keys.ts";
import { rejection, testClient, uniq, useTestClient } from "./fixtures.ts";

const server = useTestServer({ provisionDelayMs: 10 });
const client = useTestClient(server, { timeoutMs: 20_000 });
const READY = { timeoutMs: 30_000 };

/** A registered, never deployed sandbox. */
let idle: string;

/** Expects `op` (on an undeployed sandbox) to be refused with 409 WORKLOAD_SANDBOX_NOT_DEPLOYED. */
async function refusedUndeployed(op: () => Promise<unknown>, what = "operation"): Promise<CwsApiError> {
  const e = await rejection(op(), CwsConflictError);
  expect(e.reason, what).toBe("WORKLOAD_SANDBOX_NOT_DEPLOYED");
  return e;
}

async function sandbox(template = "tpl-ubuntu-headless", deploy = true): Promise<string> {
  const w = await client.workloads.create({ type: "SANDBOX", name: uniq("sb"), image: template });
  expect(w.state.status).toBe("registered");
  if (deploy) {
    await client.workloads.deploy(w.uid);
    await client.workloads.waitForStatus(w.uid, "running", READY);
  }
  return w.uid;
}

beforeAll(async () => {
  idle = await sandbox(undefined, false);
});

describe("deploy", () => {
  it("reaches running", async () => {
    const w = await client.workloads.create({
      type: "SANDBOX",
      name: uniq("dep"),
      image: "tpl-ubuntu-headless",
    });
    const op = await client.workloads.deploy(w.uid);
    expect(op.state.status).toBe("provisioning");
    expect((await client.workloads.waitForStatus(w.uid, "running", READY)).status).toBe("running");
  });
});

describe("a sandbox that is not deployed", () => {
  it("refuses runtime operations with CwsConflictError (WORKLOAD_SANDBOX_NOT_DEPLOYED)", async () => {
    const uid = idle;
    const ops: [string, () => Promise<unknown>][] = [
      ["exec", () => client.sandboxes.exec(uid, { cmd: "true" })],
      ["readFile", () => client.sandboxes.readFile(uid, "/etc/hostname")],
      ["writeFile", () => client.sandboxes.writeFile(uid, "/tmp/x", "x")],
      ["createTerminal", () => client.sandboxes.createTerminal(uid)],
      ["freeze", () => client.sandboxes.freeze(uid)],
      ["thaw", () => client.sandboxes.thaw(uid)],
      ["fork", () => client.sandboxes.fork(uid)],
      ["publish", () => client.sandboxes.publish(uid, { name: "never" })],
      ["createTicket", () => client.sandboxes.createTicket(uid)],
      ["listTerminals", () => client.sandboxes.listTerminals(uid)],
      ["desktop", () => client.sandboxes.desktop(uid)],
      ["connectTerminal", () => client.sandboxes.connectTerminal(uid, "term-1")],
    ];
    for (const [what, op] of ops) await refusedUndeployed(op, what);
  });

  it("sandbox operations on an unknown workload are CwsNotFoundError", async () => {
    await rejection(client.sandboxes.exec("wl-missing", { cmd: "true" }), CwsNotFoundError);
    await rejection(client.sandboxes.desktop("wl-missing"), CwsNotFoundError);
  });

  it("updating a field sandboxes do not support is CwsValidationError", async () => {
    const uid = await sandbox(undefined, false);
    const e = await rejection(client.workloads.update(uid, { image: "nginx" }), CwsValidationError);
    expect(e.reason).toBe("WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD");
    const w = await client.workloads.update(uid, {
      sandbox_config: { ttl_sec: 3600, idle_timeout_sec: 600 },
    });
    expect(w.sandbox_config).toMatchObject({ ttl_sec: 3600, idle_timeout_sec: 600 });
  });
});

describe("a running sandbox", () => {
  let uid: string;
  beforeAll(async () => {
    uid = await sandbox();
  });

  it("exec returns stdout, stderr and the exit code; sends X-Deployment-Type", async () => {
    const r = await client.sandboxes.exec(
      uid,
      { cmd: "echo out; echo err >&2; exit 3", timeout_sec: 30 },
      { deploymentType: "master" },
    );
    expect(r).toEqual({ stdout: "out\n", stderr: "err\n", code: 3, timed_out: false });
    await rejection(client.sandboxes.exec(uid, { cmd: "true", timeout_sec: 601 }), CwsValidationError);
  });

  it("writeFile then readFile round-trips bytes and text", async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10]);
    await client.sandboxes.writeFile(uid, "/tmp/bin.dat", bytes);
    expect(await client.sandboxes.readFile(uid, "/tmp/bin.dat")).toEqual(bytes);
    await client.sandboxes.writeFile(uid, "/tmp/hello.txt", "héllo\n");
    expect((await client.sandboxes.readFile(uid, "/tmp/hello.txt")).toString("utf8")).toBe("héllo\n");
    expect((await client.sandboxes.exec(uid, { cmd: "cat /tmp/hello.txt" })).stdout).toBe("héllo\n");
    await rejection(client.sandboxes.readFile(uid, "/tmp/missing-file"), CwsNotFoundError);
    await rejection(client.sandboxes.readFile(uid, "relative/path"), CwsValidationError);
  });

  it("createTicket mints tickets; a bad ttl is CwsValidationError", async () => {
    const t = await client.sandboxes.createTicket(uid, { ttl_sec: 30 });
    expect(t.ticket).toBeTruthy();
    expect(Date.parse(t.expires_at)).toBeGreaterThan(Date.now());
    const e = await rejection(client.sandboxes.createTicket(uid, { ttl_sec: 301 }), CwsValidationError);
    expect(e.reason).toBe("WORKLOAD_ACCESS_TICKET_TTL_INVALID");
  });

  it("terminals: create, list, connect over WebSocket, delete", async () => {
    const term = await client.sandboxes.createTerminal(uid, { cols: 100, rows: 30 });
    expect(term.exited).toBe(false);
    expect((await client.sandboxes.listTerminals(uid)).map((t) => t.id)).toContain(term.id);
    const ws = await client.sandboxes.connectTerminal(uid, term.id);
    const seen = readUntil(ws, (t) => t.includes("marker-42"));
    ws.send(Buffer.from("echo marker-$((40+2))\n"));
    expect(await seen).toContain("marker-42");
    ws.close();
    await client.sandboxes.deleteTerminal(uid, term.id);
    expect((await client.sandboxes.listTerminals(uid)).map((t) => t.id)).not.toContain(term.id);
    await rejection(client.sandboxes.deleteTerminal(uid, term.id), CwsNotFoundError);
    await rejection(client.sandboxes.createTerminal(uid, { cols: 0 }), CwsValidationError);
  });

  it("connectTerminal to an unknown terminal rejects with the handshake's API error", async () => {
    const e = await client.sandboxes.connectTerminal(uid, "no-such-terminal").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CwsNotFoundError);
    expect((e as CwsNotFoundError).route).toBe("GET /orgs/{org}/workloads/{uid}/terminals/{terminal}/ws");
  });

  it("a headless sandbox has no desktop", async () => {
    expect(await client.sandboxes.desktop(uid)).toEqual({ available: false });
    const e = await rejection(client.sandboxes.connectDesktop(uid), CwsNotFoundError);
    expect(hasReason(e, "WORKLOAD_SANDBOX_NO_DESKTOP")).toBe(true);
  });

  it("attachSshKey installs a key in a deployed sandbox", async () => {
    const key = sshKey(4242);
    const k = await client.sshKeys.create({ name: uniq("sbkey"), ssh_key: key });
    const authorized = async () =>
      (await client.sandboxes.exec(uid, { cmd: "cat /root/.ssh/authorized_keys 2>/dev/null || true" }))
        .stdout;
    await client.workloads.attachSshKey(uid, k.uid);
    expect((await client.workloads.get(uid)).ssh_keys).toContain(k.uid);
    expect(await authorized()).toContain(key);
    await client.workloads.detachSshKey(uid, k.uid);
    expect(await authorized()).not.toContain(key);
  });

  it("freeze keeps files, thaw resumes", async () => {
    await client.sandboxes.writeFile(uid, "/tmp/kept.txt", "still here");
    await client.sandboxes.freeze(uid);
    expect((await client.workloads.state(uid)).status).toBe("frozen");
    await rejection(client.sandboxes.exec(uid, { cmd: "true" }), CwsConflictError);
    await client.sandboxes.thaw(uid);
    await client.workloads.waitForStatus(uid, "running", READY);
    expect((await client.sandboxes.readFile(uid, "/tmp/kept.txt")).toString()).toBe("still here");
  });

  it("fork creates and deploys a child with the parent's files", async () => {
    await client.sandboxes.writeFile(uid, "/tmp/inherited.txt", "from parent");
    const child = await client.sandboxes.fork(uid, { name: uniq("child") });
    expect(child.uid).not.toBe(uid);
    await client.workloads.waitForStatus(child.uid, "running", READY);
    expect((await client.workloads.get(child.uid)).sandbox_config?.parent_workload_uid).toBe(uid);
    expect((await client.sandboxes.readFile(child.uid, "/tmp/inherited.txt")).toString()).toBe("from parent");
    await client.workloads.delete(child.uid);
  });

  it("publish makes a USER template that becomes READY, can be edited and deleted", async () => {
    const name = uniq("my-env");
    const t = await client.sandboxes.publish(uid, { name, display_name: "My env", description: "published" });
    expect(t).toMatchObject({ kind: "USER", name });
    const ready = await client.sandboxTemplates.waitForStatus(t.uid, "READY", READY);
    expect(ready.status).toBe("READY");
    expect((await client.sandboxTemplates.update(t.uid, { display_name: "Renamed" })).display_name).toBe(
      "Renamed",
    );
    await client.sandboxTemplates.delete(t.uid);
    await rejection(client.sandboxTemplates.get(t.uid), CwsNotFoundError);
  });
});

describe("a desktop sandbox", () => {
  it("reports the desktop and connectDesktop opens its WebSocket", async () => {
    const uid = await sandbox("tpl-ubuntu-desktop");
    const d = await client.sandboxes.desktop(uid);
    expect(d.available).toBe(true);
    const ws = await client.sandboxes.connectDesktop(uid, { waitMs: 20_000 });
    expect(ws.protocol).toBe("");
    const hello = await readUntil(ws, (t) => t.startsWith("RFB "));
    expect(hello).toMatch(/^RFB \d{3}\.\d{3}/);
    ws.close();
  });
});

describe("org scoping", () => {
  it("another org cannot mint tickets for this org's sandbox", async () => {
    const other = testClient(server, { org: "other", token: "other-token" });
    const uid = await sandbox(undefined, false);
    await rejection(other.sandboxes.createTicket(uid), CwsNotFoundError);
    await other.close();
  });
});
