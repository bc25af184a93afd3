// Tests of the sandbox runtime (server/sandbox/runtime/) on real bubblewrap sandboxes (needs the
// Debian packages listed in server/sandbox/runtime/DEBIAN_PACKAGES): exec in a sandbox
// (SandboxRuntime.exec, through the agent): output, exit codes, timeouts, background processes,
// limits.

import { describe, expect, it } from "vitest";
import { MAX_EXEC_OUTPUT_BYTES } from "../../../../server/sandbox/runtime/index.ts";
import { expectCode, useRuntime } from "./fixtures.ts";

const { rt, sh, sandbox } = useRuntime();

describe("exec", () => {
  const id = sandbox("exec", "exec-box");

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
