// Tests of the sandbox runtime (server/sandbox/runtime/) on real bubblewrap sandboxes (needs the
// Debian packages listed in server/sandbox/runtime/DEBIAN_PACKAGES): the namespaces and mounts
// bubblewrap gives a sandbox (server/sandbox/runtime/bwrap.ts), and what happens without a working
// bubblewrap.

import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { bubblewrapStatus, SandboxRuntime } from "../../../../server/sandbox/runtime/index.ts";
import { expectCode, nextId, useRuntime } from "./fixtures.ts";

const { rt, rootDir, sh, hostPids, sandbox } = useRuntime();

describe("isolation", () => {
  const a = sandbox("iso-a", "alpha-box");
  const b = sandbox("iso-b", "beta-box");

  it("has its own hostname (UTS namespace)", async () => {
    expect((await sh(a, "hostname")).trim()).toBe("alpha-box");
    expect((await sh(b, "cat /proc/sys/kernel/hostname")).trim()).toBe("beta-box");
    expect(os.hostname()).not.toBe("alpha-box");
    expect(await sh(a, "cat /etc/hosts")).toContain("alpha-box");
  });

  it("has no network but its own loopback", async () => {
    const ifaces = (await sh(a, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")).trim().split("\n");
    expect(ifaces).toEqual(["lo"]);
    // A server on the host's loopback is not reachable from the sandbox's loopback.
    const server = net.createServer((c) => c.end("host"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const r = await rt.exec(a, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED`, 10);
      expect(r.stdout).not.toContain("CONNECTED");
      expect(r.code).not.toBe(0);
      // ... while the sandbox's own loopback works.
      const local = await rt.exec(
        a,
        `python3 -c "
import socket
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept(); a.sendall(b'loopback-ok'); print(c.recv(20).decode())"`,
        10,
      );
      expect(local.stdout.trim()).toBe("loopback-ok");
    } finally {
      server.close();
    }
  });

  it("sees host system dirs read-only and its writable dirs writable", async () => {
    for (const p of ["/usr/cws-x", "/etc/cws-x", "/bin/cws-x", "/lib/cws-x", "/cws-x", "/var/cws-x"]) {
      const r = await rt.exec(a, `touch ${p}`, 10);
      expect(r.code, p).not.toBe(0);
      expect(fs.existsSync(p)).toBe(false);
    }
    // Host sysctls are read-only (writing back the current value must fail).
    const r = await rt.exec(a, "v=$(cat /proc/sys/vm/swappiness) && echo $v > /proc/sys/vm/swappiness", 10);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Read-only file system/);
    for (const d of ["/root", "/home", "/tmp", "/workspace", "/var/tmp"]) {
      await sh(a, `echo ok > ${d}/probe && cat ${d}/probe`);
    }
    // The files live on the host under rootDir/<id>/fs/.
    expect(fs.readFileSync(path.join(rootDir, a, "fs", "var/tmp/probe"), "utf8")).toBe("ok\n");
    // uid 0 without capabilities, host secrets masked.
    expect(await sh(a, "grep CapEff /proc/self/status")).toMatch(/CapEff:\s+0+\n/);
    expect(await sh(a, "wc -c < /etc/shadow")).toBe("0\n");
  });

  it("does not see the host's or another sandbox's files", async () => {
    await sh(a, "echo alpha-secret > /workspace/secret && echo t > /tmp/alpha-tmp");
    expect((await rt.exec(b, "cat /workspace/secret", 10)).code).not.toBe(0);
    expect((await rt.exec(b, "ls /tmp/alpha-tmp", 10)).code).not.toBe(0);
    expect((await rt.exec(b, `ls ${rootDir}`, 10)).code).not.toBe(0);
    expect((await rt.exec(b, `ls ${path.join(rootDir, a, "fs/workspace")}`, 10)).code).not.toBe(0);
    expect((await rt.exec(a, `ls ${process.cwd()}`, 10)).code).not.toBe(0);
  });

  it("has its own PID namespace", async () => {
    const pid = Number(await sh(a, "echo $$"));
    expect(pid).toBeLessThan(100);
    expect((await sh(a, "cat /proc/1/comm")).trim()).toBe("bwrap");
    expect((await rt.exec(a, `kill -0 ${process.pid}`, 10)).code).not.toBe(0);
    const { ns, pids } = await hostPids(a);
    expect(ns).not.toBe(fs.readlinkSync("/proc/self/ns/pid"));
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(pids).not.toContain(process.pid);
  });
});

describe("bubblewrap", () => {
  it("refuses a rootDir that sandboxes would see", () => {
    expect(() => new SandboxRuntime({ rootDir: "/usr/local/cws-sandboxes" })).toThrow(TypeError);
    expect(() => new SandboxRuntime({ rootDir: "/etc/cws" })).toThrow(TypeError);
  });

  it("refuses to start without a working bubblewrap, saying why", async () => {
    const saved = process.env.CWS_BWRAP;
    try {
      process.env.CWS_BWRAP = "/nonexistent/bwrap";
      expect(bubblewrapStatus()).toEqual({
        available: false,
        reason: "bubblewrap (bwrap) is not installed; install the Debian package bubblewrap",
      });
      const err = await expectCode(
        rt.start(nextId("nobwrap"), { hostname: "x", desktop: false }),
        "UNAVAILABLE",
      );
      expect(err.message).toContain("bubblewrap");
      // Somewhere the sandboxes' host user can run it from (rootDir is root's only).
      const fakeDir = fs.mkdtempSync(path.join(os.tmpdir(), "cws-fake-bwrap-"));
      fs.chmodSync(fakeDir, 0o755);
      const fake = path.join(fakeDir, "fake-bwrap");
      fs.writeFileSync(
        fake,
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
        {
          mode: 0o755,
        },
      );
      process.env.CWS_BWRAP = fake;
      const st = bubblewrapStatus();
      fs.rmSync(fakeDir, { recursive: true, force: true });
      expect(st.available).toBe(false);
      expect(st.reason).toContain("No permissions to creating new namespace");
    } finally {
      if (saved === undefined) delete process.env.CWS_BWRAP;
      else process.env.CWS_BWRAP = saved;
    }
    expect(bubblewrapStatus().available).toBe(true);
  });
});
