// Tests of the sandbox runtime (server/sandbox/runtime/) on real bubblewrap sandboxes (needs the
// Debian packages listed in server/sandbox/runtime/DEBIAN_PACKAGES): the end of a sandbox (teardown
// in server/sandbox/runtime/launch.ts): every process killed and every file removed, whatever state
// it was in, and sandboxes that die with the server process.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { livePidsInNamespace, pidsInNamespace, readStat } from "../../../../server/sandbox/runtime/procfs.ts";
import { SandboxRuntime } from "../../../../server/sandbox/runtime/index.ts";
import { waitFor } from "../../../helpers/wait.ts";
import { expectCode, nextId, useRuntime } from "./fixtures.ts";

const { rt, rootDir, sh, hostPids } = useRuntime();

function pidNamespaceOf(pid: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

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
    const runtimeUrl = new URL("../../../../server/sandbox/runtime/index.ts", import.meta.url).href;
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
    const pids = pidsInNamespace(ns);
    expect(pids.length).toBeGreaterThanOrEqual(3);
    // Held open until the check ends: no other sandbox can take the namespace's number meanwhile.
    const handle = fs.openSync(`/proc/${pids[0]}/ns/pid`, "r");
    child.kill("SIGKILL");
    try {
      await waitFor(() => livePidsInNamespace(ns).length === 0, "sandbox processes to die with their server");
    } finally {
      fs.closeSync(handle);
    }
    // What the dead server left (files, its disk image's mount) goes with destroy().
    await new SandboxRuntime({ rootDir: path.join(rootDir, "orphan") }).destroy("orphan");
    expect(fs.existsSync(path.join(rootDir, "orphan", "orphan"))).toBe(false);
  });
});
