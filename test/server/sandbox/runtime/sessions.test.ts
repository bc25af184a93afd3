// Tests of the sandbox runtime (server/sandbox/runtime/) on real bubblewrap sandboxes (needs the
// Debian packages listed in server/sandbox/runtime/DEBIAN_PACKAGES): sessions
// (server/sandbox/runtime/sessions.ts), that is terminals on a real PTY
// (server/sandbox/runtime/terminal.ts) and the desktop's VNC server.

import type * as net from "node:net";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SandboxRuntime } from "../../../../server/sandbox/runtime/index.ts";
import { waitFor } from "../../../helpers/wait.ts";
import { expectCode, nextId, terminalOutput, useRuntime } from "./fixtures.ts";

const { rt, rootDir, sh, sandbox } = useRuntime();

describe("terminals", () => {
  const id = sandbox("term", "term-box");

  it("runs a shell on a real PTY, raw bytes both ways, with resize and exit status", async () => {
    const t = rt.openTerminal(id, 80, 24);
    const out = terminalOutput(t);
    await t.ready;
    expect(t.pid).toBeGreaterThan(1);
    await sh(id, `kill -0 ${t.pid}`);
    t.write(Buffer.from("echo hello-$((6*7))\n"));
    await waitFor(() => out.text().includes("hello-42"), "hello-42");
    t.write(Buffer.from("tty; stty size\n"));
    await waitFor(() => /\/dev\/pts\/\d+/.test(out.text()) && out.text().includes("24 80"), "pts and 24 80");
    t.resize(132, 43);
    await new Promise((r) => setTimeout(r, 200));
    t.write(Buffer.from("stty size\n"));
    await waitFor(() => out.text().includes("43 132"), "43 132");
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
    const out = terminalOutput(t);
    t.resize(90, 30);
    t.write(Buffer.from("stty size; echo early-$((2*3))\n"));
    await t.ready;
    expect(t.pid).toBeGreaterThan(1);
    await waitFor(() => out.text().includes("30 90") && out.text().includes("early-6"), "30 90 and early-6");
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
      const out = terminalOutput(t);
      await t.ready;
      t.write(Buffer.from("echo hello-$((6*7)); stty size\n"));
      await waitFor(
        () => out.text().includes("hello-42") && out.text().includes("30 100"),
        "hello-42, 30 100",
      );
      t.resize(120, 50);
      await new Promise((r) => setTimeout(r, 300));
      t.write(Buffer.from("stty size\n"));
      await waitFor(() => out.text().includes("50 120"), "50 120");
      const code = new Promise<number>((r) => t.onExit(r));
      t.write(Buffer.from("exit 5\n"));
      expect(await code).toBe(5);
    } finally {
      await alt.shutdown();
    }
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
    await waitFor(() => (rt.desktop(id) as { listening: boolean }).listening, "desktop listening", {
      timeoutMs: 30_000,
    });
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
