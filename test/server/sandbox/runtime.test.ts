// Tests of server/sandbox on real bubblewrap sandboxes (needs the Debian packages listed in
// server/sandbox/DEBIAN_PACKAGES).

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { livePidsInNamespace, pidsInNamespace, readStat } from "../../../server/sandbox/procfs.ts";
import {
  bubblewrapStatus,
  MAX_EXEC_OUTPUT_BYTES,
  MAX_FILE_BYTES,
  SandboxError,
  SandboxRuntime,
  type TerminalSession,
} from "../../../server/sandbox/runtime.ts";
import { until } from "../../helpers/wait.ts";

let rootDir: string;
let rt: SandboxRuntime;
let seq = 0;
const nextId = (p = "sb") => `${p}-${process.pid}-${++seq}`;

async function expectCode(
  p: Promise<unknown> | (() => unknown),
  code: SandboxError["code"],
): Promise<SandboxError> {
  let err: unknown;
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err, `expected SandboxError ${code}`).toBeInstanceOf(SandboxError);
  expect((err as SandboxError).code).toBe(code);
  return err as SandboxError;
}

async function sh(id: string, cmd: string, timeoutSec = 20): Promise<string> {
  const r = await rt.exec(id, cmd, timeoutSec);
  expect(r.code, `${cmd}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** Host PIDs of every process of a sandbox of the given runtime. */
async function hostPidsOf(runtime: SandboxRuntime, id: string): Promise<{ ns: string; pids: number[] }> {
  const r = await runtime.exec(id, "readlink /proc/self/ns/pid", 20);
  const ns = r.stdout.trim();
  return { ns, pids: pidsInNamespace(ns) };
}

let idle: string | undefined;
/** A sandbox of the shared runtime (started once, on first use). */
function nextIdleSandbox(): string {
  if (!idle) throw new Error("no idle sandbox");
  return idle;
}

/** Host PIDs of every process of a sandbox (found through its PID namespace). */
async function hostPids(id: string): Promise<{ ns: string; pids: number[] }> {
  const ns = (await sh(id, "readlink /proc/self/ns/pid")).trim();
  return { ns, pids: pidsInNamespace(ns) };
}

function pidNamespaceOf(pid: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

function collect(t: TerminalSession): { text: () => string } {
  const chunks: Buffer[] = [];
  t.onData((b) => chunks.push(b));
  return { text: () => Buffer.concat(chunks).toString("utf8") };
}

beforeAll(async () => {
  const status = bubblewrapStatus();
  if (!status.available) throw new Error(`sandbox tests need bubblewrap: ${status.reason}`);
  rootDir = fs.mkdtempSync(path.join(os.tmpdir(), "cws-sbx-test-"));
  rt = new SandboxRuntime({ rootDir });
  idle = nextId("idle");
  await rt.start(idle, { hostname: "idle", desktop: false });
});

afterAll(async () => {
  await rt?.shutdown();
  if (rootDir) fs.rmSync(rootDir, { recursive: true, force: true });
});

describe("isolation", () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = nextId("iso-a");
    b = nextId("iso-b");
    await Promise.all([
      rt.start(a, { hostname: "alpha-box", desktop: false }),
      rt.start(b, { hostname: "beta-box", desktop: false }),
    ]);
  });

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

describe("containment", () => {
  // A runtime of its own with small limits, so that hitting them is quick.
  const limits = { processes: 64, memoryBytes: 256 * 1024 * 1024, diskBytes: 32 * 1024 * 1024 };
  let small: SandboxRuntime;
  let smallRoot: string;
  let a: string;
  let b: string;
  const run = (id: string, cmd: string, t = 30) => small.exec(id, cmd, t);
  const secretFile = `/etc/cws-root-only-${process.pid}`;
  const isRoot = process.getuid?.() === 0;

  beforeAll(async () => {
    smallRoot = fs.mkdtempSync(path.join(os.tmpdir(), "cws-sbx-limits-"));
    small = new SandboxRuntime({ rootDir: smallRoot, limits });
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
    await small?.shutdown();
    if (smallRoot) fs.rmSync(smallRoot, { recursive: true, force: true });
  });

  it("runs as an unprivileged host user: root inside is not root outside", async () => {
    await run(a, "touch /workspace/mine");
    const st = fs.statSync(path.join(smallRoot, a, "fs/workspace/mine"));
    if (isRoot) expect(st.uid).not.toBe(0);
    else expect(st.uid).toBe(process.getuid!());
    const { pids } = await hostPidsOf(small, a);
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
    const { ns } = await hostPidsOf(small, a);
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
    await until(() => pidsInNamespace(ns).length <= 2, "the bomb to die out", 20_000);
    expect((await run(a, "echo bombed-ok")).stdout).toBe("bombed-ok\n");
    expect((await run(b, "echo neighbour-ok")).stdout).toBe("neighbour-ok\n");
    expect((await rt.exec(nextIdleSandbox(), "echo other-runtime-ok", 10)).stdout).toBe("other-runtime-ok\n");
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

describe("exec", () => {
  let id: string;
  beforeAll(async () => {
    id = nextId("exec");
    await rt.start(id, { hostname: "exec-box", desktop: false });
  });

  it("captures stdout, stderr and the exit code, in /workspace", async () => {
    const r = await rt.exec(id, "echo out; echo err >&2; pwd; exit 7", 10);
    expect(r).toEqual({ stdout: "out\n/workspace\n", stderr: "err\n", code: 7, timedOut: false });
  });

  it("kills the command's process group on timeout (timedOut, code 124)", async () => {
    const t0 = Date.now();
    const r = await rt.exec(
      id,
      "echo $$ > /tmp/timeout-pid; sleep 1000 & echo $! > /tmp/timeout-child; wait",
      1,
    );
    expect(r.timedOut).toBe(true);
    expect(r.code).toBe(124);
    expect(Date.now() - t0).toBeLessThan(8000);
    const alive = await rt.exec(
      id,
      "kill -0 $(cat /tmp/timeout-pid) || kill -0 $(cat /tmp/timeout-child)",
      10,
    );
    expect(alive.code).not.toBe(0);
  });

  it("keeps background processes running after exec returns", async () => {
    const t0 = Date.now();
    const pid = (await sh(id, "nohup sleep 1000 >/dev/null 2>&1 & echo $!")).trim();
    const pid2 = (await sh(id, "sleep 1001 & echo $!")).trim(); // holds the stdout pipe
    const pid3 = (await sh(id, "setsid sleep 1002 </dev/null >/dev/null 2>&1 & echo $!")).trim();
    expect(Date.now() - t0).toBeLessThan(5000);
    await new Promise((r) => setTimeout(r, 300));
    await sh(id, `kill -0 ${pid} && kill -0 ${pid2} && kill -0 ${pid3}`);
  });

  it("caps captured output", async () => {
    const r = await rt.exec(
      id,
      `head -c ${MAX_EXEC_OUTPUT_BYTES + 100_000} /dev/zero | tr '\\0' a; echo done >&2`,
      30,
    );
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(MAX_EXEC_OUTPUT_BYTES);
    expect(r.stderr).toBe("done\n");
  });

  it("records activity and reports unknown sandboxes", async () => {
    const before = rt.lastActivity(id);
    await new Promise((r) => setTimeout(r, 20));
    await sh(id, "true");
    expect(rt.lastActivity(id)).toBeGreaterThan(before);
    await expectCode(rt.exec("no-such-sandbox", "true", 5), "NOT_FOUND");
  });
});

describe("files", () => {
  let id: string;
  beforeAll(async () => {
    id = nextId("files");
    await rt.start(id, { hostname: "files-box", desktop: false });
  });

  it("round-trips binary data, creating parent dirs", async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    await rt.writeFile(id, "/workspace/deep/dir/blob.bin", data);
    expect((await rt.readFile(id, "/workspace/deep/dir/blob.bin")).equals(data)).toBe(true);
    expect((await sh(id, "sha256sum < /workspace/deep/dir/blob.bin")).split(" ")[0]).toBe(
      (await import("node:crypto")).createHash("sha256").update(data).digest("hex"),
    );
    await rt.writeFile(id, "/root/empty", Buffer.alloc(0));
    expect((await rt.readFile(id, "/root/empty")).length).toBe(0);
    await rt.writeFile(id, "/root/empty", Buffer.from("overwritten"));
    expect((await rt.readFile(id, "/root/empty")).toString()).toBe("overwritten");
  });

  it("reads system files as the sandbox sees them", async () => {
    expect((await rt.readFile(id, "/etc/hostname")).toString()).toBe("files-box\n");
    expect((await rt.readFile(id, "/etc/passwd")).toString()).toContain("root:");
  });

  it("refuses special files: /proc, /dev, FIFOs, and paths below a regular file", async () => {
    for (const p of ["/proc/self/pagemap", "/proc/self/mem", "/proc/sys/kernel/hostname", "/dev/zero"]) {
      await expectCode(rt.readFile(id, p), "INVALID_PATH");
    }
    await sh(
      id,
      "mkfifo /tmp/fifo && ln -sf /proc/self/environ /workspace/env-link && echo x > /workspace/plain",
    );
    await expectCode(rt.readFile(id, "/tmp/fifo"), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "/tmp/fifo", Buffer.from("x")), "INVALID_PATH");
    await expectCode(rt.readFile(id, "/workspace/env-link"), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "/workspace/env-link", Buffer.from("x")), "INVALID_PATH");
    await expectCode(rt.readFile(id, "/workspace/plain/below"), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "/workspace/plain/below", Buffer.from("x")), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "/workspace/plain/deeper/below", Buffer.from("x")), "INVALID_PATH");
    // The sandbox still answers.
    expect((await rt.readFile(id, "/workspace/plain")).toString()).toBe("x\n");
  });

  it("refuses relative paths, missing files, directories and read-only places", async () => {
    await expectCode(rt.readFile(id, "workspace/x"), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "x", Buffer.from("x")), "INVALID_PATH");
    await expectCode(rt.readFile(id, "/workspace/missing"), "NOT_FOUND");
    await expectCode(rt.readFile(id, "/workspace"), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "/etc/passwd", Buffer.from("x")), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "/usr/bin/cws-evil", Buffer.from("x")), "INVALID_PATH");
    await expectCode(rt.writeFile(id, "/dev/null", Buffer.from("x")), "INVALID_PATH");
    await expectCode(rt.readFile(id, "/dev/zero"), "INVALID_PATH");
    await sh(id, "mkfifo /workspace/fifo");
    await expectCode(rt.readFile(id, "/workspace/fifo"), "INVALID_PATH");
  });

  it("enforces the 256 MiB limit on write and read", async () => {
    // allocUnsafe does not touch the pages: no 256 MiB of real memory is used.
    await expectCode(
      rt.writeFile(id, "/workspace/huge", Buffer.allocUnsafe(MAX_FILE_BYTES + 1)),
      "TOO_LARGE",
    );
    expect((await rt.exec(id, "test -e /workspace/huge", 5)).code).not.toBe(0);
    // A sparse file larger than the limit, made inside the sandbox.
    await sh(id, `truncate -s ${MAX_FILE_BYTES + 1} /workspace/sparse`);
    await expectCode(rt.readFile(id, "/workspace/sparse"), "TOO_LARGE");
  });
});

describe("no way out of the sandbox's filesystem", () => {
  let id: string;
  let other: string;
  let canaryDir: string;
  let canary: string;
  const secret = "host-canary-" + randomBytes(8).toString("hex");
  const hostPasswd = fs.readFileSync("/etc/passwd");

  beforeAll(async () => {
    id = nextId("escape");
    other = nextId("victim");
    canaryDir = fs.mkdtempSync(path.join(os.tmpdir(), "cws-canary-"));
    canary = path.join(canaryDir, "canary.txt");
    fs.writeFileSync(canary, secret);
    await rt.start(id, { hostname: "escape-box", desktop: false });
    await rt.start(other, { hostname: "victim-box", desktop: false });
    await sh(other, "echo victim-secret > /workspace/victim.txt");
    const victimFile = path.join(rootDir, other, "fs/workspace/victim.txt");
    await sh(
      id,
      [
        `ln -s ${canaryDir} /workspace/evil_dir`,
        `ln -s ${canary} /workspace/evil_file`,
        `ln -s ../../../../../../../../..${canaryDir} /workspace/rel_dir`,
        `ln -s / /workspace/root_link`,
        `ln -s /etc /workspace/etc_link`,
        `ln -s ${victimFile} /workspace/victim_link`,
        `ln -s ${path.join(rootDir, other)} /workspace/victim_dir`,
        `mkdir -p /workspace/sub && ln -s ${canaryDir} /workspace/sub/parent`,
        "mkfifo /workspace/fifo",
      ].join(" && "),
    );
  });

  afterAll(() => fs.rmSync(canaryDir, { recursive: true, force: true }));

  function hostUntouched(): void {
    expect(fs.readFileSync(canary, "utf8")).toBe(secret);
    expect(fs.readdirSync(canaryDir)).toEqual(["canary.txt"]);
    expect(fs.readFileSync("/etc/passwd").equals(hostPasswd)).toBe(true);
    expect(fs.readFileSync(path.join(rootDir, other, "fs/workspace/victim.txt"), "utf8")).toBe(
      "victim-secret\n",
    );
    expect(fs.readdirSync(path.join(rootDir, other, "fs/workspace"))).toEqual(["victim.txt"]);
  }

  it("cannot read host files through paths or symlinks", async () => {
    for (const p of [
      canary,
      `/workspace/../../../..${canary}`,
      "/workspace/evil_file",
      "/workspace/evil_dir/canary.txt",
      "/workspace/rel_dir/canary.txt",
      `/workspace/root_link${canary}`,
      "/workspace/sub/parent/canary.txt",
      "/workspace/victim_link",
      "/workspace/victim_dir/fs/workspace/victim.txt",
    ]) {
      let content = "";
      try {
        content = (await rt.readFile(id, p)).toString();
      } catch (err) {
        expect(err, p).toBeInstanceOf(SandboxError);
      }
      expect(content, p).not.toContain(secret);
      expect(content, p).not.toContain("victim-secret");
    }
    // System dirs read through a symlink give the sandbox's view, not the host's.
    expect((await rt.readFile(id, "/workspace/etc_link/hostname")).toString()).toBe("escape-box\n");
    hostUntouched();
  });

  it("cannot write host files through paths or symlinks", async () => {
    const attempts = [
      canary,
      `/workspace/../../..${canary}`,
      "/workspace/evil_file",
      "/workspace/evil_dir/canary.txt",
      "/workspace/evil_dir/new.txt",
      "/workspace/rel_dir/canary.txt",
      `/workspace/root_link${canaryDir}/new.txt`,
      "/workspace/sub/parent/canary.txt",
      "/workspace/victim_link",
      "/workspace/victim_dir/fs/workspace/new.txt",
      "/workspace/etc_link/passwd",
      "/workspace/root_link/etc/passwd",
      "/workspace/root_link/usr/bin/cws-evil",
    ];
    for (const p of attempts) {
      try {
        await rt.writeFile(id, p, Buffer.from("pwned"));
      } catch (err) {
        expect(err, p).toBeInstanceOf(SandboxError);
      }
    }
    await expectCode(rt.writeFile(id, "/workspace/etc_link/passwd", Buffer.from("pwned")), "INVALID_PATH");
    hostUntouched();
    // What did succeed landed inside the sandbox's own files (e.g. its own /tmp).
    expect(fs.readFileSync(path.join(rootDir, id, "fs", canary), "utf8")).toBe("pwned");
  });

  it("cannot tamper with the control channel", async () => {
    expect((await rt.exec(id, "ln -sf / /run/cws/s", 5)).code).not.toBe(0);
    expect((await rt.exec(id, "touch /run/cws/x", 5)).code).not.toBe(0);
    expect(
      (
        await rt.exec(
          id,
          "echo junk | python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect('/run/cws/s'); s.sendall(b'0'*32+b'\\n'+b'junk'*1000)\"",
          5,
        )
      ).code,
    ).toBe(0);
    // The sandbox still works and the host is untouched.
    // (evil_file now resolves to the sandbox's own /tmp copy written by the previous test.)
    expect((await rt.readFile(id, "/workspace/evil_file")).toString()).toBe("pwned");
    expect(await sh(id, "echo alive")).toBe("alive\n");
    hostUntouched();
  });

  it("fork and snapshot copy symlinks verbatim without following them", async () => {
    const child = nextId("escape-fork");
    await rt.fork(id, child, { hostname: "escape-fork", desktop: false });
    expect((await sh(child, "readlink /workspace/evil_dir")).trim()).toBe(canaryDir);
    expect((await sh(child, "readlink /workspace/rel_dir")).trim()).toBe(
      `../../../../../../../../..${canaryDir}`,
    );
    const snap = path.join(rootDir, "snap-escape");
    await rt.snapshot(id, snap);
    expect(fs.lstatSync(path.join(snap, "workspace/evil_dir")).isSymbolicLink()).toBe(true);
    expect(fs.lstatSync(path.join(snap, "workspace/root_link")).isSymbolicLink()).toBe(true);
    // A FIFO is recreated as a FIFO (never opened).
    expect(fs.lstatSync(path.join(snap, "workspace/fifo")).isFIFO()).toBe(true);
    // No copied file contains host data.
    const walk = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(d, e.name);
        return e.isDirectory() ? walk(p) : e.isFile() ? [p] : [];
      });
    for (const f of [...walk(snap), ...walk(path.join(rootDir, child, "fs"))]) {
      const c = fs.readFileSync(f);
      expect(c.includes(secret), f).toBe(false);
      expect(c.includes("victim-secret"), f).toBe(false);
    }
    await rt.destroy(child);
    hostUntouched();
  });
});

describe("terminals", () => {
  let id: string;
  beforeAll(async () => {
    id = nextId("term");
    await rt.start(id, { hostname: "term-box", desktop: false });
  });

  it("runs a shell on a real PTY, raw bytes both ways, with resize and exit status", async () => {
    const t = rt.openTerminal(id, 80, 24);
    const out = collect(t);
    await t.ready;
    expect(t.pid).toBeGreaterThan(1);
    await sh(id, `kill -0 ${t.pid}`);
    t.write(Buffer.from("echo hello-$((6*7))\n"));
    await until(() => out.text().includes("hello-42"), "hello-42");
    t.write(Buffer.from("tty; stty size\n"));
    await until(() => /\/dev\/pts\/\d+/.test(out.text()) && out.text().includes("24 80"), "pts and 24 80");
    t.resize(132, 43);
    await new Promise((r) => setTimeout(r, 200));
    t.write(Buffer.from("stty size\n"));
    await until(() => out.text().includes("43 132"), "43 132");
    const info = rt.listTerminals(id).find((i) => i.id === t.id)!;
    expect(info).toMatchObject({ id: t.id, pid: t.pid, exited: false });
    expect(Date.parse(info.started_at)).toBeGreaterThan(0);
    expect(rt.getTerminal(id, t.id)).toBe(t);
    const code = new Promise<number>((r) => t.onExit(r));
    t.write(Buffer.from("exit 3\n"));
    expect(await code).toBe(3);
    expect(t.exited).toBe(true);
    expect(t.exitCode).toBe(3);
    expect(rt.listTerminals(id).find((i) => i.id === t.id)).toMatchObject({ exited: true, exit_code: 3 });
    rt.closeTerminal(id, t.id);
    expect(rt.getTerminal(id, t.id)).toBeUndefined();
  });

  it("applies input and resize given before the shell is up", async () => {
    const t = rt.openTerminal(id, 80, 24);
    expect(t.pid).toBe(0);
    const out = collect(t);
    t.resize(90, 30);
    t.write(Buffer.from("stty size; echo early-$((2*3))\n"));
    await t.ready;
    expect(t.pid).toBeGreaterThan(1);
    await until(() => out.text().includes("30 90") && out.text().includes("early-6"), "30 90 and early-6");
    rt.closeTerminal(id, t.id);
  });

  it("limits live terminals per sandbox", async () => {
    const small = new SandboxRuntime({ rootDir: path.join(rootDir, "small"), maxTerminals: 2 });
    const sid = nextId("term-limit");
    try {
      await small.start(sid, { hostname: "limit-box", desktop: false });
      const t1 = small.openTerminal(sid, 80, 24);
      const t2 = small.openTerminal(sid, 80, 24);
      await Promise.all([t1.ready, t2.ready]);
      await expectCode(() => small.openTerminal(sid, 80, 24), "LIMIT");
      const exited = new Promise<number>((r) => t1.onExit(r));
      small.closeTerminal(sid, t1.id);
      await exited;
      const t3 = small.openTerminal(sid, 80, 24);
      await t3.ready;
      expect(small.listTerminals(sid).map((i) => i.id)).toEqual([t2.id, t3.id]);
      // kill() ends the shell.
      const code = new Promise<number>((r) => t2.onExit(r));
      t2.kill();
      expect(await code).toBeGreaterThan(0);
    } finally {
      await small.shutdown();
    }
  });

  it("works with the util-linux script fallback", async () => {
    const alt = new SandboxRuntime({ rootDir: path.join(rootDir, "alt"), terminalBackend: "script" });
    const sid = nextId("term-script");
    try {
      await alt.start(sid, { hostname: "script-box", desktop: false });
      const t = alt.openTerminal(sid, 100, 30);
      const out = collect(t);
      await t.ready;
      t.write(Buffer.from("echo hello-$((6*7)); stty size\n"));
      await until(() => out.text().includes("hello-42") && out.text().includes("30 100"), "hello-42, 30 100");
      t.resize(120, 50);
      await new Promise((r) => setTimeout(r, 300));
      t.write(Buffer.from("stty size\n"));
      await until(() => out.text().includes("50 120"), "50 120");
      const code = new Promise<number>((r) => t.onExit(r));
      t.write(Buffer.from("exit 5\n"));
      expect(await code).toBe(5);
    } finally {
      await alt.shutdown();
    }
  });
});

describe("freeze and thaw", () => {
  it("stops every process and resumes the same ones", async () => {
    const id = nextId("freeze");
    await rt.start(id, { hostname: "freeze-box", desktop: false });
    const term = rt.openTerminal(id, 80, 24);
    const out = collect(term);
    await term.ready;
    const pid = (
      await sh(
        id,
        "sh -c 'while true; do date +%s%N >> /workspace/ticks; sleep 0.2; done' >/dev/null 2>&1 & echo $!",
      )
    ).trim();
    const ticks = path.join(rootDir, id, "fs/workspace/ticks");
    await until(() => fs.existsSync(ticks) && fs.statSync(ticks).size > 0, "ticks");
    const { ns } = await hostPids(id);

    await rt.freeze(id);
    const frozenPids = pidsInNamespace(ns);
    expect(frozenPids.length).toBeGreaterThanOrEqual(4);
    for (const p of frozenPids) expect(["T", "Z"], `pid ${p}`).toContain(readStat(p)?.state);
    const size = fs.statSync(ticks).size;
    await new Promise((r) => setTimeout(r, 1000));
    expect(fs.statSync(ticks).size).toBe(size);
    await expectCode(rt.exec(id, "true", 5), "INVALID_STATE");
    await expectCode(rt.readFile(id, "/workspace/ticks"), "INVALID_STATE");
    await expectCode(rt.writeFile(id, "/workspace/x", Buffer.from("x")), "INVALID_STATE");
    await expectCode(() => rt.openTerminal(id, 80, 24), "INVALID_STATE");
    await expectCode(() => term.write(Buffer.from("x")), "INVALID_STATE");
    // Files are kept.
    expect(fs.readFileSync(ticks).length).toBe(size);

    await rt.thaw(id);
    await sh(id, `kill -0 ${pid}`);
    await until(() => fs.statSync(ticks).size > size, "ticks to grow again");
    expect(pidsInNamespace(ns)).toEqual(expect.arrayContaining(frozenPids.filter((p) => readStat(p))));
    // The terminal's shell survived too.
    term.write(Buffer.from("echo thawed-$((1+1))\n"));
    await until(() => out.text().includes("thawed-2"), "thawed-2");
    await rt.destroy(id);
  });
});

describe("fork and snapshot", () => {
  it("fork copies the parent's files; parent and child are independent", async () => {
    const parent = nextId("parent");
    const child = nextId("child");
    await rt.start(parent, { hostname: "parent-box", desktop: false });
    await sh(
      parent,
      "echo from-parent > /workspace/shared.txt && mkdir -p /root/cfg && echo v1 > /root/cfg/a",
    );
    const bg = (await sh(parent, "nohup sleep 1000 >/dev/null 2>&1 & echo $!")).trim();
    await rt.fork(parent, child, { hostname: "child-box", desktop: false });
    expect((await sh(child, "hostname")).trim()).toBe("child-box");
    expect(await sh(child, "cat /workspace/shared.txt /root/cfg/a")).toBe("from-parent\nv1\n");
    await sh(child, "echo from-child > /workspace/shared.txt && echo only-child > /workspace/c.txt");
    await sh(parent, "echo v2 > /root/cfg/a");
    expect(await sh(parent, "cat /workspace/shared.txt; ls /workspace")).toBe("from-parent\nshared.txt\n");
    expect(await sh(child, "cat /root/cfg/a")).toBe("v1\n");
    // The parent's processes went on after the copy; the child has none of them.
    await sh(parent, `kill -0 ${bg}`);
    expect(await sh(child, "cat /proc/[0-9]*/comm | grep -c '^sleep$' || true")).toBe("0\n");
    expect(await sh(parent, "cat /proc/[0-9]*/comm | grep -c '^sleep$' || true")).toBe("1\n");
    // Destroying the parent leaves the fork alone.
    await rt.destroy(parent);
    expect(await sh(child, "cat /workspace/shared.txt")).toBe("from-child\n");
    await rt.destroy(child);
  });

  it("snapshot carries files into a new sandbox", async () => {
    const id = nextId("snap-src");
    await rt.start(id, { hostname: "snap-src", desktop: false });
    await sh(
      id,
      "echo snapshot-data > /workspace/data.txt && chmod 640 /workspace/data.txt && ln -s data.txt /workspace/link",
    );
    await rt.writeFile(id, "/home/notes.bin", Buffer.from([0, 1, 2, 255]));
    const snap = path.join(rootDir, "snap-" + id);
    await rt.snapshot(id, snap);
    expect(fs.readFileSync(path.join(snap, "workspace/data.txt"), "utf8")).toBe("snapshot-data\n");
    await expectCode(rt.snapshot(id, snap), "INVALID_STATE"); // destination not empty
    await rt.destroy(id);
    const restored = nextId("snap-dst");
    await rt.start(restored, { hostname: "snap-dst", desktop: false, fromSnapshot: snap });
    expect(await sh(restored, "cat /workspace/link; stat -c %a /workspace/data.txt")).toBe(
      "snapshot-data\n640\n",
    );
    expect([...(await rt.readFile(restored, "/home/notes.bin"))]).toEqual([0, 1, 2, 255]);
    await rt.destroy(restored);
    await expectCode(
      rt.start(nextId("snap-missing"), {
        hostname: "x",
        desktop: false,
        fromSnapshot: path.join(rootDir, "nope"),
      }),
      "NOT_FOUND",
    );
  });
});

describe("ssh keys", () => {
  it("installs idempotently with the right modes and removes", async () => {
    const id = nextId("ssh");
    await rt.start(id, { hostname: "ssh-box", desktop: false });
    const k1 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBvX3q1 user@one";
    const k2 = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@two";
    await rt.installSshKey(id, k1);
    await rt.installSshKey(id, k1);
    await rt.installSshKey(id, k2 + "\n");
    expect(await sh(id, "cat /root/.ssh/authorized_keys")).toBe(`${k1}\n${k2}\n`);
    expect(await sh(id, "stat -c %a /root/.ssh /root/.ssh/authorized_keys")).toBe("700\n600\n");
    await rt.removeSshKey(id, k1);
    expect(await sh(id, "cat /root/.ssh/authorized_keys")).toBe(`${k2}\n`);
    await rt.removeSshKey(id, k1);
    await expect(rt.installSshKey(id, "ssh-ed25519 AAAA\nssh-rsa BBBB")).rejects.toThrow(TypeError);
    await rt.destroy(id);
  });
});

/** Reads exactly n bytes from a socket. */
function readExactly(sock: net.Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (b: Buffer) => {
      buf = Buffer.concat([buf, b]);
      if (buf.length >= n) {
        sock.off("data", onData);
        sock.pause();
        if (buf.length > n) sock.unshift(buf.subarray(n));
        resolve(buf.subarray(0, n));
      }
    };
    sock.on("data", onData);
    sock.resume();
    sock.once("error", reject);
    sock.once("close", () => reject(new Error(`closed after ${buf.length} of ${n} bytes`)));
  });
}

describe("desktop", () => {
  it("serves RFB from a real VNC server inside the sandbox", async () => {
    const id = nextId("desk");
    await rt.start(id, { hostname: "desk-box", desktop: true });
    const d = rt.desktop(id);
    expect(d).toMatchObject({ available: true, port: 5900 });
    await until(() => (rt.desktop(id) as { listening: boolean }).listening, "desktop listening", 30_000);
    const sock = await rt.connectDesktop(id);
    try {
      // RFB 3.8 handshake up to ServerInit.
      expect((await readExactly(sock, 12)).toString()).toMatch(/^RFB 003\.00\d\n$/);
      sock.write("RFB 003.008\n");
      const nTypes = (await readExactly(sock, 1))[0];
      const types = [...(await readExactly(sock, nTypes))];
      expect(types).toContain(1); // None
      sock.write(Buffer.from([1]));
      expect((await readExactly(sock, 4)).readUInt32BE(0)).toBe(0); // SecurityResult OK
      sock.write(Buffer.from([1])); // ClientInit, shared
      const init = await readExactly(sock, 24);
      expect([init.readUInt16BE(0), init.readUInt16BE(2)]).toEqual([1280, 800]);
      const name = await readExactly(sock, init.readUInt32BE(20));
      expect(name.toString()).toContain("desk-box");
    } finally {
      sock.destroy();
    }
    // X clients inside the sandbox find the display.
    expect((await sh(id, "echo $DISPLAY; ls /tmp/.X11-unix")).trim()).toBe(":0\nX0");
    await rt.destroy(id);
  });

  it("headless sandboxes have no desktop", async () => {
    const id = nextId("headless");
    await rt.start(id, { hostname: "headless", desktop: false });
    expect(rt.desktop(id)).toEqual({ available: false });
    await expectCode(rt.connectDesktop(id), "NO_DESKTOP");
    await rt.destroy(id);
  });
});

describe("destroy and shutdown", () => {
  it("kills every process of the sandbox and removes its files", async () => {
    const id = nextId("destroy");
    await rt.start(id, { hostname: "destroy-box", desktop: false });
    await sh(
      id,
      "nohup sleep 1000 >/dev/null 2>&1 & setsid sleep 1001 </dev/null >/dev/null 2>&1 & echo done",
    );
    const t = rt.openTerminal(id, 80, 24);
    await t.ready;
    const { ns, pids } = await hostPids(id);
    expect(pids.length).toBeGreaterThanOrEqual(6); // init, agent, 2 sleeps, pty helper, shell
    const exited = new Promise<number>((r) => t.onExit(r));
    await rt.destroy(id);
    // (A zombie is dead already; the host's init reaps it.)
    expect(livePidsInNamespace(ns)).toEqual([]);
    for (const p of pids) {
      const st = readStat(p);
      expect(st === undefined || st.state === "Z" || pidNamespaceOf(p) !== ns, `pid ${p}`).toBe(true);
    }
    expect(fs.existsSync(path.join(rootDir, id))).toBe(false);
    await exited;
    await expectCode(rt.exec(id, "true", 5), "NOT_FOUND");
    await expectCode(rt.destroy(id), "NOT_FOUND");
  });

  it("destroys a frozen sandbox", async () => {
    const id = nextId("destroy-frozen");
    await rt.start(id, { hostname: "frozen-box", desktop: false });
    await sh(id, "nohup sleep 1000 >/dev/null 2>&1 &");
    const { ns } = await hostPids(id);
    await rt.freeze(id);
    await rt.destroy(id);
    expect(livePidsInNamespace(ns)).toEqual([]);
    expect(fs.existsSync(path.join(rootDir, id))).toBe(false);
  });

  it("reports a sandbox whose agent was killed from inside as not running", async () => {
    const id = nextId("suicide");
    await rt.start(id, { hostname: "suicide-box", desktop: false });
    const { ns } = await hostPids(id);
    await sh(id, "nohup sleep 1000 >/dev/null 2>&1 &");
    await expectCode(rt.exec(id, "kill -9 2; sleep 5", 10), "INVALID_STATE");
    await expectCode(rt.exec(id, "true", 5), "INVALID_STATE");
    expect(rt.state(id)).toBe("stopped");
    await rt.destroy(id);
    expect(livePidsInNamespace(ns)).toEqual([]);
    expect(fs.existsSync(path.join(rootDir, id))).toBe(false);
  });

  it("sandbox processes die with the server process", async () => {
    const script = path.join(rootDir, "orphan.ts");
    const runtimeUrl = new URL("../../../server/sandbox/runtime.ts", import.meta.url).href;
    fs.writeFileSync(
      script,
      `import { SandboxRuntime } from ${JSON.stringify(runtimeUrl)};
const rt = new SandboxRuntime({ rootDir: ${JSON.stringify(path.join(rootDir, "orphan"))} });
await rt.start("orphan", { hostname: "orphan", desktop: false });
const r = await rt.exec("orphan", "nohup sleep 1000 >/dev/null 2>&1 & readlink /proc/self/ns/pid", 10);
console.log(r.stdout.trim());
setInterval(() => {}, 1000);
`,
    );
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
    const ns = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (b: Buffer) => {
        out += b.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child.on("exit", (c) => reject(new Error(`child exited ${c}`)));
    });
    expect(ns).toMatch(/^pid:\[\d+\]$/);
    expect(pidsInNamespace(ns).length).toBeGreaterThanOrEqual(3);
    child.kill("SIGKILL");
    await until(() => livePidsInNamespace(ns).length === 0, "sandbox processes to die with their server");
    // What the dead server left (files, its disk image's mount) goes with destroy().
    await new SandboxRuntime({ rootDir: path.join(rootDir, "orphan") }).destroy("orphan");
    expect(fs.existsSync(path.join(rootDir, "orphan", "orphan"))).toBe(false);
  });

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
