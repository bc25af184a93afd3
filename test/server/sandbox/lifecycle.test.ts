// Sandbox lifecycle on real sandboxes, through the API: freeze/thaw, fork, publish, idle timeout,
// TTL, master/shadow pools, delete (server/sandbox/service.ts, pools.ts, timers.ts, snapshots.ts).
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { adminCall, call, expectError } from "../../helpers/http.ts";
import { startTestServer, useTestServer } from "../../helpers/server.ts";
import { waitFor } from "../../helpers/wait.ts";
import { create } from "../fixtures.ts";
import { deploySandbox, exec, headless, hostPidsWith, sb, sh, waitState } from "./fixtures.ts";

// The sandboxes' directory is the test's, to look at what stays on the host.
const s = useTestServer({ sandboxRoot: true });

const SHADOW = { "x-deployment-type": "shadow" };

describe("freeze and thaw", () => {
  it("stop and resume the same processes; exec, files and terminals are 409 while frozen", async () => {
    const id = await deploySandbox(s);
    const pid = (await sh(s, id, "sleep 1000 >/dev/null 2>&1 & echo $!")).trim();
    const f = await call(s, "POST", sb(id, "freeze"));
    expect(f.status).toBe(200);
    expect(f.body.state.status).toBe("frozen");
    expect((await call(s, "GET", sb(id, "state"))).body.status).toBe("frozen");
    // the host sees the sandbox's processes stopped
    const host = hostPidsWith("sleep 1000").filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/stat`, "latin1").split(") ")[1]![0] === "T";
      } catch {
        return false;
      }
    });
    expect(host.length).toBeGreaterThan(0);
    for (const [method, op, body] of [
      ["POST", "exec", { cmd: "true" }],
      ["GET", "files?path=/tmp/x", undefined],
      ["PUT", "files", { path: "/tmp/x", content_b64: "" }],
      ["POST", "terminals", undefined],
      ["POST", "fork", undefined],
      ["POST", "publish", { name: "frozen-pub" }],
      ["POST", "freeze", undefined],
    ] as const)
      expectError(await call(s, method, sb(id, op), body), 409, "WORKLOAD_SANDBOX_INVALID_STATE");
    const t = await call(s, "POST", sb(id, "thaw"));
    expect(t.status).toBe(200);
    expect(t.body.state.status).toBe("running");
    expect(await sh(s, id, `kill -0 ${pid} && echo same-${pid}`)).toBe(`same-${pid}\n`);
    expectError(await call(s, "POST", sb(id, "thaw")), 409, "WORKLOAD_SANDBOX_INVALID_STATE");
  });
});

describe("fork", () => {
  it("creates and deploys a child with a copy of the parent's files; an empty body names it {parent}-fork", async () => {
    const key = (
      await call(s, "POST", "/orgs/demo/ssh-keys", {
        name: "fork-key",
        ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx fork@cws",
      })
    ).body.uid;
    const parent = await deploySandbox(s, {
      name: "a-rather-long-parent-name-abcdef",
      project_id: "proj-1",
      ports: [{ port: 8080 }],
      ssh_keys: [key],
      sandbox_config: { ttl_sec: 3600, idle_timeout_sec: 600 },
    });
    await sh(s, parent, "echo from-parent > /workspace/inherited.txt");
    const r = await call(s, "POST", sb(parent, "fork"));
    expect(r.status).toBe(201);
    const child = r.body;
    expect(child.uid).not.toBe(parent);
    expect(child.name).toBe("a-rather-long-parent-name-a-fork");
    expect(child.name.length).toBeLessThanOrEqual(32);
    await waitState(s, child.uid, "running");
    const full = (await call(s, "GET", sb(child.uid))).body;
    expect(full.sandbox_config).toEqual({
      template_uid: "tpl-ubuntu-headless",
      ttl_sec: 3600,
      idle_timeout_sec: 600,
      parent_workload_uid: parent,
    });
    expect(full).toMatchObject({ project_id: "proj-1", ssh_keys: [key], ports: [{ port: 8080 }] });
    expect(await sh(s, child.uid, "cat /workspace/inherited.txt; hostname")).toBe(
      "from-parent\na-rather-long-parent-name-a-fork\n",
    );
    expect(await sh(s, child.uid, "cat /root/.ssh/authorized_keys")).toContain("fork@cws");
    // independent afterwards
    await sh(s, child.uid, "echo child > /workspace/inherited.txt");
    expect(await sh(s, parent, "cat /workspace/inherited.txt")).toBe("from-parent\n");
    expect((await call(s, "GET", sb(parent))).body.sandbox_config.parent_workload_uid).toBeUndefined();

    const named = await call(s, "POST", sb(parent, "fork"), {
      name: "named-child",
      sandbox_config: { ttl_sec: 0 },
    });
    expect(named.status).toBe(201);
    expect(named.body.name).toBe("named-child");
    await waitState(s, named.body.uid, "running");
    expect((await call(s, "GET", sb(named.body.uid))).body.sandbox_config).toMatchObject({
      ttl_sec: 0,
      idle_timeout_sec: 600,
    });
    expectError(
      await call(s, "POST", sb(parent, "fork"), { name: "Bad_Name" }),
      400,
      "WORKLOAD_NAME_INVALID",
    );
  });
});

describe("publish", () => {
  it("answers 202 with a PENDING USER template that becomes READY; sandboxes from it start with its files", async () => {
    const src = await deploySandbox(s);
    await sh(s, src, "mkdir -p /root/proj && echo published > /root/proj/data.txt");
    const r = await call(s, "POST", sb(src, "publish"), {
      name: "my-env.v1",
      display_name: "My env",
      description: "with data",
    });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      kind: "USER",
      status: "PENDING",
      name: "my-env.v1",
      display_name: "My env",
    });
    const tpl = r.body.uid;
    await waitFor(
      async () => (await call(s, "GET", `/orgs/demo/sandbox-templates/${tpl}`)).body.status === "READY",
      "template READY",
    );
    const from = await deploySandbox(s, { image: tpl });
    expect(await sh(s, from, "cat /root/proj/data.txt")).toBe("published\n");
    expectError(await call(s, "POST", sb(src, "publish"), { name: "-bad" }), 400, "SANDBOX_TEMPLATE_INVALID");
    // deleting the template removes its files (later); deploys from it are then refused
    expect((await call(s, "DELETE", `/orgs/demo/sandbox-templates/${tpl}`)).status).toBe(204);
  });
});

describe("timeouts", () => {
  it("idle_timeout_sec freezes an idle sandbox; thaw brings it back", async () => {
    const id = await deploySandbox(s, { sandbox_config: { idle_timeout_sec: 1 } });
    await waitState(s, id, "frozen", 5_000);
    const events = (await call(s, "GET", sb(id, "events"))).body.items;
    expect(events.at(-1)).toMatchObject({ new_status: "frozen", reason: "IdleTimeout" });
    expect((await call(s, "POST", sb(id, "thaw"))).status).toBe(200);
    expect(await sh(s, id, "echo back")).toBe("back\n");
  });

  it("activity keeps a sandbox from idling", async () => {
    const id = await deploySandbox(s, { sandbox_config: { idle_timeout_sec: 1 } });
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 250));
      expect((await exec(s, id, "true")).status).toBe(200);
    }
    expect((await call(s, "GET", sb(id, "state"))).body.status).toBe("running");
    // a command running longer than the idle timeout is activity too
    expect((await exec(s, id, "sleep 1.8; echo done")).body).toMatchObject({ stdout: "done\n", code: 0 });
    expect((await call(s, "GET", sb(id, "state"))).body.status).toBe("running");
  });

  it("ttl_sec deletes the sandbox at the end of its life", async () => {
    const id = await deploySandbox(s, { sandbox_config: { ttl_sec: 2 } });
    await sh(s, id, "sleep 1234567 >/dev/null 2>&1 &");
    expect(hostPidsWith("sleep 1234567").length).toBe(1);
    await waitState(s, id, "deleted", 6_000);
    expect(hostPidsWith("sleep 1234567")).toEqual([]);
    expect(fs.existsSync(path.join(s.sandboxRoot!, "master", id))).toBe(false);
  });
});

describe("master and shadow pools", () => {
  it("a sandbox deployed in one pool is not visible to operations sent to the other", async () => {
    const shadow = await deploySandbox(s, {}, SHADOW);
    const master = await deploySandbox(s);
    expect(fs.existsSync(path.join(s.sandboxRoot!, "shadow", shadow))).toBe(true);
    expect((await exec(s, shadow, "echo in-shadow", SHADOW)).body.stdout).toBe("in-shadow\n");
    expectError(await exec(s, shadow, "true"), 404, "WORKLOAD_SANDBOX_TARGET_NOT_FOUND");
    expectError(
      await exec(s, shadow, "true", { "x-deployment-type": "master" }),
      404,
      "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
    );
    expectError(await exec(s, master, "true", SHADOW), 404, "WORKLOAD_SANDBOX_TARGET_NOT_FOUND");
    expectError(
      await call(s, "POST", sb(master, "freeze"), undefined, { headers: SHADOW }),
      404,
      "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
    );
    // the generic routes see both
    expect((await call(s, "GET", sb(shadow))).body.state.status).toBe("running");
    // a fork stays in its parent's pool
    const child = (await call(s, "POST", sb(shadow, "fork"), { name: "shadow-child" }, { headers: SHADOW }))
      .body;
    await waitState(s, child.uid, "running");
    expect((await exec(s, child.uid, "true", SHADOW)).status).toBe(200);
    expectError(await exec(s, child.uid, "true"), 404, "WORKLOAD_SANDBOX_TARGET_NOT_FOUND");
    expectError(
      await call(
        s,
        "POST",
        sb(shadow, "exec"),
        { cmd: "true" },
        { headers: { "x-deployment-type": "blue" } },
      ),
      400,
      "INVALID_DEPLOYMENT_TYPE",
    );
  });
});

describe("delete", () => {
  it("kills the sandbox's processes, removes its files and keeps its forks", async () => {
    const parent = await deploySandbox(s);
    await sh(s, parent, "sleep 7654321 >/dev/null 2>&1 & echo x > /workspace/f");
    const child = (await call(s, "POST", sb(parent, "fork"), { name: "survivor" })).body;
    await waitState(s, child.uid, "running");
    expect(hostPidsWith("sleep 7654321").length).toBe(1); // processes are not forked, files are
    expect((await call(s, "DELETE", sb(parent))).status).toBe(204);
    expect((await call(s, "GET", sb(parent, "state"))).body.status).toBe("deleted");
    expect(hostPidsWith("sleep 7654321")).toEqual([]);
    expect(fs.existsSync(path.join(s.sandboxRoot!, "master", parent))).toBe(false);
    expectError(await exec(s, parent, "true"), 409, "WORKLOAD_SANDBOX_NOT_DEPLOYED");
    expect((await call(s, "GET", sb(child.uid, "state"))).body.status).toBe("running");
    expect(await sh(s, child.uid, "cat /workspace/f")).toBe("x\n");
  });

  it("deleting a sandbox while it provisions destroys it once started", async () => {
    const w = await create(s, headless());
    await call(s, "POST", sb(w.uid, "deploy"));
    expect((await call(s, "DELETE", sb(w.uid))).status).toBe(204);
    await new Promise((r) => setTimeout(r, 300));
    expect(fs.existsSync(path.join(s.sandboxRoot!, "master", w.uid))).toBe(false);
    expect((await call(s, "GET", sb(w.uid, "state"))).body.status).toBe("deleted");
  });
});

describe("restart and reset", () => {
  it("a sandbox running when the server stopped is in error after a restart, and deploys again", async () => {
    const s1 = await startTestServer({ dataDir: true, sandboxRoot: true });
    const id = await deploySandbox(s1);
    const s2 = await s1.restart();
    try {
      const st = (await call(s2, "GET", sb(id, "state"))).body;
      expect(st).toMatchObject({ status: "error" });
      expect(st.message).toMatch(/lost when the server restarted/);
      expect((await call(s2, "POST", sb(id, "deploy"))).status).toBe(200);
      await waitState(s2, id, "running");
      expect(await sh(s2, id, "echo again")).toBe("again\n");
    } finally {
      await s2.close();
    }
  });

  it("the admin reset destroys every sandbox", async () => {
    const id = await deploySandbox(s);
    await sh(s, id, "sleep 3456789 >/dev/null 2>&1 &");
    expect(hostPidsWith("sleep 3456789").length).toBe(1);
    expect((await adminCall(s, "POST", "/reset")).status).toBe(200);
    expect(hostPidsWith("sleep 3456789")).toEqual([]);
    expect(fs.existsSync(path.join(s.sandboxRoot!, "master", id))).toBe(false);
  });
});
