// Tests of the sandbox runtime (server/sandbox/runtime/) on real bubblewrap sandboxes (needs the
// Debian packages listed in server/sandbox/runtime/DEBIAN_PACKAGES): reading and writing a
// sandbox's files from the host side (SandboxRuntime.readFile/writeFile), and no path, symlink,
// fork or snapshot that leads out of the sandbox's own files.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, SandboxError } from "../../../../server/sandbox/runtime/index.ts";
import { expectCode, nextId, useRuntime } from "./fixtures.ts";

const { rt, rootDir, sh, sandbox } = useRuntime();

describe("files", () => {
  const id = sandbox("files", "files-box");

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
