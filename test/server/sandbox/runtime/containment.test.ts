// Tests of the sandbox runtime (server/sandbox/runtime/) on real bubblewrap sandboxes (needs the
// Debian packages listed in server/sandbox/runtime/DEBIAN_PACKAGES): what a sandbox cannot do to
// the host or its neighbours: identity, environment, user namespaces, and the process, memory and
// disk limits (server/sandbox/runtime/limits.ts).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pidsInNamespace } from "../../../../server/sandbox/runtime/procfs.ts";
import { waitFor } from "../../../helpers/wait.ts";
import { nextId, useRuntime } from "./fixtures.ts";

// A runtime beside the limited one below, with a sandbox that must keep working through it all.
const neighbour = useRuntime();
const idle = neighbour.sandbox("idle", "idle");

describe("containment", () => {
  // A runtime of its own with small limits, so that hitting them is quick.
  const limits = { processes: 64, memoryBytes: 256 * 1024 * 1024, diskBytes: 32 * 1024 * 1024 };
  const { rt: small, rootDir: smallRoot, hostPids: smallHostPids } = useRuntime({ limits });
  let a: string;
  let b: string;
  const run = (id: string, cmd: string, t = 30) => small.exec(id, cmd, t);
  const secretFile = `/etc/cws-root-only-${process.pid}`;
  const isRoot = process.getuid?.() === 0;

  beforeAll(async () => {
    a = nextId("cage-a");
    b = nextId("cage-b");
    process.env.CWS_TEST_SERVER_SECRET = "server-env-secret-value";
    if (isRoot) fs.writeFileSync(secretFile, "root-only-secret\n", { mode: 0o600 });
    try {
      await Promise.all([
        small.start(a, { hostname: "cage-a", desktop: false }),
        small.start(b, { hostname: "cage-b", desktop: false }),
      ]);
    } finally {
      delete process.env.CWS_TEST_SERVER_SECRET;
    }
  });
  afterAll(async () => {
    fs.rmSync(secretFile, { force: true });
  });

  it("runs as an unprivileged host user: root inside is not root outside", async () => {
    await run(a, "touch /workspace/mine");
    const st = fs.statSync(path.join(smallRoot, a, "fs/workspace/mine"));
    if (isRoot) expect(st.uid).not.toBe(0);
    else expect(st.uid).toBe(process.getuid!());
    const { pids } = await smallHostPids(a);
    for (const pid of pids) {
      const uids = /^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1];
      if (isRoot) expect(Number(uids), `host uid of sandbox pid ${pid}`).not.toBe(0);
    }
    expect((await run(a, "id -u")).stdout.trim()).toBe("0");
  });

  it("cannot read the server's environment", async () => {
    const r = await run(a, "cat /proc/1/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n'");
    expect(r.stdout).not.toContain("server-env-secret-value");
    expect(r.stdout).not.toContain("CWS_TEST_SERVER_SECRET");
    expect((await run(a, "tr '\\0' '\\n' < /proc/1/environ | wc -l")).stdout.trim()).toBe("0");
  });

  it.runIf(isRoot)("cannot read root-only host files", async () => {
    const r = await run(a, `cat ${secretFile}`);
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain("root-only-secret");
    expect(r.stderr).toMatch(/Permission denied/);
  });

  it("does not see the host's /tmp or another sandbox's files", async () => {
    const hostTmp = fs.mkdtempSync(path.join(os.tmpdir(), "cws-host-tmp-"));
    fs.writeFileSync(path.join(hostTmp, "host-file"), "host");
    try {
      expect((await run(a, `ls /tmp; cat ${hostTmp}/host-file`)).stdout).not.toContain("host");
      expect((await run(a, `ls ${path.dirname(hostTmp)}`)).stdout).not.toContain(path.basename(hostTmp));
    } finally {
      fs.rmSync(hostTmp, { recursive: true, force: true });
    }
    await small.writeFile(b, "/workspace/b-secret", Buffer.from("b-only"));
    const r = await run(
      a,
      "grep -rs b-only / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr; echo done",
    );
    expect(r.stdout.trim()).toBe("done");
  });

  it("cannot create user namespaces", async () => {
    for (const cmd of ["unshare -U true", "unshare -Ur id", "unshare -m true"]) {
      const r = await run(a, cmd);
      expect(r.code, cmd).not.toBe(0);
    }
  });

  it("a fork bomb hits the process limit; the sandbox, its neighbour and the host keep working", async () => {
    const { ns } = await smallHostPids(a);
    // 200 processes asked for: the count stops at the limit.
    const many = await run(
      a,
      `python3 -c '
import errno, os, signal, time
kids, err = [], None
try:
    while len(kids) < 200:
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
except OSError as e:
    err = errno.errorcode[e.errno]
print(len([p for p in os.listdir("/proc") if p.isdigit()]), err)
for k in kids:
    os.kill(k, signal.SIGKILL)
'`,
    );
    expect(many.stdout).toMatch(/^\d+ EAGAIN\n$/);
    const count = Number(many.stdout.split(" ")[0]);
    expect(count).toBeGreaterThan(limits.processes / 2);
    expect(count).toBeLessThanOrEqual(limits.processes);
    // The classic bomb fails to fork and dies out.
    const r = await run(a, "f(){ f | f & }; f; sleep 2", 20);
    expect(r.stderr).toMatch(/Cannot fork|Resource temporarily unavailable/);
    await waitFor(() => pidsInNamespace(ns).length <= 2, "the bomb to die out", { timeoutMs: 20_000 });
    expect((await run(a, "echo bombed-ok")).stdout).toBe("bombed-ok\n");
    expect((await run(b, "echo neighbour-ok")).stdout).toBe("neighbour-ok\n");
    expect((await neighbour.rt.exec(idle, "echo other-runtime-ok", 10)).stdout).toBe("other-runtime-ok\n");
  });

  it("a memory hog is stopped by the memory limit; the sandbox keeps working", async () => {
    const r = await run(a, `python3 -c 's = "x" * (1024 ** 3); print("allocated")'`);
    expect(r.stdout).not.toContain("allocated");
    expect(r.code).not.toBe(0);
    expect((await run(a, "echo still-here")).stdout).toBe("still-here\n");
    expect((await run(b, "echo neighbour-ok")).stdout).toBe("neighbour-ok\n");
  });

  it("writes past the disk limit fail inside the sandbox", async () => {
    const r = await run(b, "dd if=/dev/zero of=/workspace/fill bs=1M count=64");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/No space left on device|File too large/);
    const size = Number((await run(b, "stat -c %s /workspace/fill")).stdout);
    expect(size).toBeLessThanOrEqual(limits.diskBytes);
    await run(b, "rm /workspace/fill");
    expect((await run(b, "echo after > /workspace/after && cat /workspace/after")).stdout).toBe("after\n");
  });
});
