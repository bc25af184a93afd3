/* eslint-disable @typescript-eslint/no-explicit-any */
// Sandbox routes on real bubblewrap sandboxes: deploy, exec, files, PATCH without redeploy, SSH keys
// (server/sandbox/routes/ops.ts, server/sandbox/routes/files.ts, server/sandbox/pools.ts).
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { create, PUBLIC_KEY, rental } from "../fixtures.ts";
import { deploySandbox, exec, headless, sb, sh, waitState } from "./fixtures.ts";

const s = useTestServer();
let uid: string;
beforeAll(async () => {
  uid = await deploySandbox(s, { name: "ops-box" });
});

describe("deploy", () => {
  it("moves registered → provisioning → running, with the workload name as hostname", async () => {
    const w = await create(s, headless({ name: "host-name-1" }));
    expect(w.state.status).toBe("registered");
    const d = await call(s, "POST", sb(w.uid, "deploy"));
    expect(d.status).toBe(200);
    expect(d.body.state.status).toBe("provisioning");
    await waitState(s, w.uid, "running");
    expect(await sh(s, w.uid, "hostname")).toBe("host-name-1\n");
    const events = (await call(s, "GET", sb(w.uid, "events"))).body.items;
    const statuses = events
      .filter((e: any) => e.event_type === "STATUS_CHANGE")
      .map((e: any) => e.new_status);
    expect(statuses).toEqual(["provisioning", "running"]);
  });

  it("answers 503 WORKLOAD_SANDBOX_NO_CAPACITY saying why when bubblewrap cannot run", async () => {
    const w = await create(s, headless());
    const saved = process.env.CWS_BWRAP;
    process.env.CWS_BWRAP = "/nonexistent/bwrap";
    try {
      const msg = expectError(
        await call(s, "POST", sb(w.uid, "deploy")),
        503,
        "WORKLOAD_SANDBOX_NO_CAPACITY",
      );
      expect(msg).toMatch(/bubblewrap/);
    } finally {
      if (saved === undefined) delete process.env.CWS_BWRAP;
      else process.env.CWS_BWRAP = saved;
    }
    expect((await call(s, "GET", sb(w.uid, "state"))).body.status).toBe("registered");
  });
});

describe("refusals before anything runs", () => {
  it("operations on a registered sandbox are 409 WORKLOAD_SANDBOX_NOT_DEPLOYED", async () => {
    const w = await create(s, headless());
    const ops: [string, string, unknown?][] = [
      ["POST", "exec", { cmd: "true" }],
      ["GET", "files?path=/tmp/x"],
      ["PUT", "files", { path: "/tmp/x", content_b64: "" }],
      ["POST", "access-tickets"],
      ["GET", "terminals"],
      ["POST", "terminals"],
      ["POST", "freeze"],
      ["POST", "thaw"],
      ["POST", "fork"],
      ["POST", "publish", { name: "never" }],
      ["GET", "desktop"],
    ];
    for (const [method, op, body] of ops) {
      const msg = expectError(
        await call(s, method, sb(w.uid, op), body),
        409,
        "WORKLOAD_SANDBOX_NOT_DEPLOYED",
      );
      expect(msg, `${method} ${op}`).toMatch(/not deployed \(status registered\)/);
    }
  });

  it("sandbox operations on other workload types are 400 WORKLOAD_OPERATION_UNSUPPORTED; RENTAL exec still works", async () => {
    const r = await create(s, rental());
    for (const op of ["freeze", "thaw", "fork", "access-tickets", "terminals"])
      expectError(await call(s, "POST", sb(r.uid, op)), 400, "WORKLOAD_OPERATION_UNSUPPORTED");
    expectError(await call(s, "GET", sb(r.uid, "files?path=/x")), 400, "WORKLOAD_OPERATION_UNSUPPORTED");
    expectError(await call(s, "GET", sb(r.uid, "desktop")), 400, "WORKLOAD_OPERATION_UNSUPPORTED");
    // RENTAL exec is the generic route (query command), not the sandbox one
    expectError(await call(s, "POST", `${sb(r.uid, "exec")}?command=true`), 409, "WORKLOAD_NOT_RUNNING");
    expectError(await call(s, "POST", sb("wl-missing", "freeze")), 404, "WORKLOAD_NOT_FOUND");
  });
});

describe("exec", () => {
  it("returns stdout, stderr, exit code and timed_out", async () => {
    const r = await exec(s, uid, "echo out; echo err >&2; exit 3");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ stdout: "out\n", stderr: "err\n", code: 3, timed_out: false });
    const t = await call(s, "POST", sb(uid, "exec"), { cmd: "sleep 5", timeout_sec: 1 });
    expect(t.body).toMatchObject({ timed_out: true, code: 124 });
  });

  it("validates cmd and timeout_sec", async () => {
    const bad: [unknown, RegExp][] = [
      [{}, /cmd/],
      [{ cmd: "true", timeout_sec: 0 }, /timeout_sec must be between 1 and 600/],
      [{ cmd: "true", timeout_sec: 601 }, /timeout_sec must be between 1 and 600/],
      [{ cmd: "true", timeout_sec: 1.5 }, /timeout_sec/],
      [{ cmd: "x".repeat(64 * 1024 + 1) }, /cmd must be at most 65536 bytes/],
      [{ cmd: "true", extra: 1 }, /unknown field: extra/],
    ];
    for (const [body, msg] of bad)
      expect(expectError(await call(s, "POST", sb(uid, "exec"), body), 400, "WORKLOAD_EXEC_INVALID")).toMatch(
        msg,
      );
    const ok = await exec(s, uid, `echo ${"y".repeat(60 * 1024)} | wc -c`);
    expect(ok.body.stdout.trim()).toBe(String(60 * 1024 + 1));
  });
});

describe("files", () => {
  it("round-trips bytes; exec sees the same file", async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
    const put = await call(s, "PUT", sb(uid, "files"), {
      path: "/workspace/dir/bin.dat",
      content_b64: bytes.toString("base64"),
    });
    expect(put.status).toBe(204);
    const got = await call(s, "GET", `${sb(uid, "files")}?path=/workspace/dir/bin.dat`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ path: "/workspace/dir/bin.dat", content_b64: bytes.toString("base64") });
    expect(await sh(s, uid, "od -An -tu1 /workspace/dir/bin.dat | tr -s ' '")).toBe(" 0 1 2 250 255 10 13\n");
    const big = Buffer.alloc(3 * 1024 * 1024 + 1, 7);
    expect(
      (await call(s, "PUT", sb(uid, "files"), { path: "/tmp/big", content_b64: big.toString("base64") }))
        .status,
    ).toBe(204);
    const back = await call(s, "GET", `${sb(uid, "files")}?path=/tmp/big`);
    expect(Buffer.from(back.body.content_b64, "base64").equals(big)).toBe(true);
  });

  it("refuses relative paths (400), missing files (404) and bad bodies", async () => {
    expectError(await call(s, "GET", `${sb(uid, "files")}?path=tmp/x`), 400, "WORKLOAD_SANDBOX_PATH_INVALID");
    expectError(await call(s, "GET", sb(uid, "files")), 400, "WORKLOAD_SANDBOX_PATH_INVALID");
    expectError(
      await call(s, "PUT", sb(uid, "files"), { path: "../etc/x", content_b64: "" }),
      400,
      "WORKLOAD_SANDBOX_PATH_INVALID",
    );
    expectError(
      await call(s, "GET", `${sb(uid, "files")}?path=/tmp/no-such`),
      404,
      "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
    );
    expectError(await call(s, "GET", `${sb(uid, "files")}?path=/tmp`), 400, "WORKLOAD_SANDBOX_PATH_INVALID");
    expectError(
      await call(s, "PUT", sb(uid, "files"), { path: "/tmp/x", content_b64: "not base64!" }),
      400,
      "INVALID_BODY",
    );
    expectError(
      await call(s, "PUT", sb(uid, "files"), { path: "/usr/bin/evil", content_b64: "" }),
      400,
      "WORKLOAD_SANDBOX_PATH_INVALID",
    );
  });

  it("stays inside the sandbox: `..` and a symlink to a host dir do not reach host files", async () => {
    const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), "cws-canary-"));
    const canary = path.join(hostDir, "canary.txt");
    fs.writeFileSync(canary, "host secret");
    try {
      // `..` climbs only to the sandbox's own root
      expectError(
        await call(s, "GET", `${sb(uid, "files")}?path=/workspace/../../..${canary}`),
        404,
        "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
      );
      // a symlink made inside the sandbox points into the sandbox's view, never the host's
      await sh(s, uid, `ln -sfn ${hostDir} /workspace/escape && ln -sfn ${canary} /workspace/canary-link`);
      for (const p of ["/workspace/escape/canary.txt", "/workspace/canary-link"])
        expectError(
          await call(s, "GET", `${sb(uid, "files")}?path=${p}`),
          404,
          "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
        );
      const w1 = await call(s, "PUT", sb(uid, "files"), {
        path: "/workspace/escape/canary.txt",
        content_b64: Buffer.from("overwritten").toString("base64"),
      });
      const w2 = await call(s, "PUT", sb(uid, "files"), {
        path: "/workspace/canary-link",
        content_b64: Buffer.from("overwritten").toString("base64"),
      });
      // the link targets do not exist in the sandbox's view: nothing to write through
      for (const w of [w1, w2]) expectError(w, 404, "WORKLOAD_SANDBOX_TARGET_NOT_FOUND");
      expect(fs.readFileSync(canary, "utf8")).toBe("host secret");
      expect(fs.readdirSync(hostDir)).toEqual(["canary.txt"]);
    } finally {
      fs.rmSync(hostDir, { recursive: true, force: true });
    }
  });

  it("413 WORKLOAD_SANDBOX_FILE_TOO_LARGE from the Content-Length, before the body is sent", async () => {
    const url = new URL(`${s.baseUrl}${sb(uid, "files")}`);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(url, {
        method: "PUT",
        headers: {
          authorization: "Bearer demo-token",
          "content-type": "application/json",
          "content-length": String(400 * 1024 * 1024),
        },
      });
      req.on("response", (r) => {
        let body = "";
        r.on("data", (c: Buffer) => (body += c.toString()));
        r.on("end", () => resolve({ status: r.statusCode!, body }));
      });
      req.on("error", reject);
      req.write('{"path":"/tmp/huge","content_b64":"AAAA');
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).reason).toBe("WORKLOAD_SANDBOX_FILE_TOO_LARGE");
    expect((await exec(s, uid, "true")).status).toBe(200);
  });
});

describe("PATCH of a deployed sandbox", () => {
  it("applies name, ports and ttl without redeploy: processes survive", async () => {
    const id = await deploySandbox(s);
    const before = (await call(s, "GET", sb(id))).body;
    const pid = (await sh(s, id, "sleep 1000 >/dev/null 2>&1 & echo $!")).trim();
    const r = await call(s, "PATCH", sb(id), {
      name: "renamed-box",
      ports: [{ port: 8080, protocol: "TCP" }],
      sandbox_config: { ttl_sec: 3600, idle_timeout_sec: 600 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "renamed-box",
      revision: before.revision,
      ports: [{ port: 8080, protocol: "TCP" }],
      sandbox_config: { ttl_sec: 3600, idle_timeout_sec: 600 },
    });
    expect(r.body.state.status).toBe("running");
    expect(await sh(s, id, `kill -0 ${pid} && echo alive`)).toBe("alive\n");
    const bad = await call(s, "PATCH", sb(id), { image: "tpl-ubuntu-desktop" });
    expect(expectError(bad, 400, "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD")).toMatch(/image/);
    expectError(
      await call(s, "PATCH", sb(id), { sandbox_config: { template_uid: "x" } }),
      400,
      "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD",
    );
    expect(await sh(s, id, `kill -0 ${pid} && echo alive`)).toBe("alive\n");
  });
});

describe("SSH keys", () => {
  it("attach installs the key in authorized_keys, detach and PATCH ssh_keys sync it", async () => {
    const id = await deploySandbox(s);
    const k1 = (await call(s, "POST", "/orgs/demo/ssh-keys", { name: "k1", ssh_key: PUBLIC_KEY })).body.uid;
    const other =
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl second@cws";
    const k2 = (await call(s, "POST", "/orgs/demo/ssh-keys", { name: "k2", ssh_key: other })).body.uid;
    const keys = () => sh(s, id, "cat /root/.ssh/authorized_keys 2>/dev/null || true");

    expect((await call(s, "PUT", sb(id, `ssh-keys/${k1}`))).status).toBe(200);
    expect(await keys()).toContain(PUBLIC_KEY);
    expect((await call(s, "DELETE", sb(id, `ssh-keys/${k1}`))).status).toBe(204);
    expect(await keys()).not.toContain(PUBLIC_KEY);

    expect((await call(s, "PATCH", sb(id), { ssh_keys: [k1, k2] })).status).toBe(200);
    expect(await keys()).toContain(PUBLIC_KEY);
    expect(await keys()).toContain(other);
    expect((await call(s, "PATCH", sb(id), { ssh_keys: [k2] })).status).toBe(200);
    const now = await keys();
    expect(now).not.toContain(PUBLIC_KEY);
    expect(now).toContain(other);
    expect((await call(s, "PATCH", sb(id), { ssh_keys: [] })).status).toBe(200);
    expect((await keys()).trim()).toBe("");

    // keys given at create are installed at deploy
    const withKey = await deploySandbox(s, { ssh_keys: [k1] });
    expect(await sh(s, withKey, "cat /root/.ssh/authorized_keys")).toContain(PUBLIC_KEY);
  });
});
