// Tests of the sandbox runtime (server/sandbox/runtime/) on real bubblewrap sandboxes (needs the
// Debian packages listed in server/sandbox/runtime/DEBIAN_PACKAGES): the operations of
// SandboxRuntime (server/sandbox/runtime/sandbox-runtime.ts) on live sandboxes: freeze and thaw,
// fork and snapshot, SSH keys.

import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pidsInNamespace, readStat } from "../../../../server/sandbox/runtime/procfs.ts";
import { waitFor } from "../../../helpers/wait.ts";
import { expectCode, nextId, terminalOutput, useRuntime } from "./fixtures.ts";

const { rt, rootDir, sh, hostPids } = useRuntime();

describe("freeze and thaw", () => {
  it("stops every process and resumes the same ones", async () => {
    const id = nextId("freeze");
    await rt.start(id, { hostname: "freeze-box", desktop: false });
    const term = rt.openTerminal(id, 80, 24);
    const out = terminalOutput(term);
    await term.ready;
    const pid = (
      await sh(
        id,
        "sh -c 'while true; do date +%s%N >> /workspace/ticks; sleep 0.2; done' >/dev/null 2>&1 & echo $!",
      )
    ).trim();
    const ticks = path.join(rootDir, id, "fs/workspace/ticks");
    await waitFor(() => fs.existsSync(ticks) && fs.statSync(ticks).size > 0, "ticks");
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
    await waitFor(() => fs.statSync(ticks).size > size, "ticks to grow again");
    expect(pidsInNamespace(ns)).toEqual(expect.arrayContaining(frozenPids.filter((p) => readStat(p))));
    // The terminal's shell survived too.
    term.write(Buffer.from("echo thawed-$((1+1))\n"));
    await waitFor(() => out.text().includes("thawed-2"), "thawed-2");
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

  it("takes a request carrying U+2028 or U+2029 (JSON leaves them raw) at once", async () => {
    const id = nextId("sep");
    await rt.start(id, { hostname: "sep-box", desktop: false });
    // A key whose comment holds the separators an OpenSSH key line allows (spec 2.9).
    const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBvX3q1 a\u2028b\u2029c";
    const started = Date.now();
    await rt.installSshKey(id, key);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await sh(id, "cat /root/.ssh/authorized_keys")).toBe(`${key}\n`);
    expect((await rt.exec(id, "printf '%s' 'x\u2028y'", 5)).stdout).toBe("x\u2028y");
    await rt.destroy(id);
  });
});
