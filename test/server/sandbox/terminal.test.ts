// Tests of server/sandbox on real bubblewrap sandboxes (needs the Debian packages listed in
// server/sandbox/DEBIAN_PACKAGES): terminals on a real PTY (server/sandbox/terminal.ts).

import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SandboxRuntime } from "../../../server/sandbox/runtime.ts";
import { waitFor } from "../../helpers/wait.ts";
import { expectCode, nextId, terminalOutput, useRuntime } from "./runtime-fixture.ts";

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
