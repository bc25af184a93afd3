/** The Go example run as its users run it: a Go binary using Go's Automation API (inline program). */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GO_BUILD_ENV } from "../../../scripts/toolchain/go-build.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { run } from "../../../scripts/run.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";
import { filesContaining, printedOutputs, programDir } from "../../helpers/program-dir.ts";

const EXAMPLE = join(REPO_ROOT, "examples", "go-vm");
const VM_PASSWORD = "go-vm-pass-3b9f";

describe("examples/go-vm through Go's Automation API", () => {
  let server: TestServer;
  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, "sdk", "go", "go.mod")))
      throw new Error("sdk/go is not generated: run `npm run languages:setup`");
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it(
    "deploys a VM with a secret password, previews no changes and destroys it",
    { timeout: 600_000 },
    async () => {
      const p = programDir("go-vm", EXAMPLE, server);
      const binary = join(p.project, "go-vm");
      try {
        // Built in place: its go.mod points at the generated SDK in this checkout (sdk/go).
        await run("go", ["build", "-o", binary, "."], {
          cwd: EXAMPLE,
          env: { ...process.env, ...GO_BUILD_ENV },
        });
        const env = { ...p.env, VM_PASSWORD };
        const goVm = (command: string) => run(binary, [command], { cwd: p.project, env });

        const up = await goVm("up");
        const out = printedOutputs(up);
        expect(out).toMatchObject({ status: "running", vmConfig: "[secret]", sshPort: expect.any(Number) });
        expect(out.publicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
        const live = await liveResources(server);
        expect(live.workloads.map((w) => [w.uid, w.type, w.state?.status])).toEqual([
          [out.uid, "VM", "running"],
        ]);
        expect(live.ssh_keys.map((k) => k.uid)).toEqual([out.sshKeyUid]);

        await goVm("preview");
        // The password is a secret everywhere: not in the state, not in what the program printed.
        expect(up).not.toContain(VM_PASSWORD);
        expect(filesContaining(p.state, VM_PASSWORD)).toEqual([]);

        await goVm("destroy");
        const after = await liveResources(server);
        expect([after.workloads, after.ssh_keys]).toEqual([[], []]);
      } finally {
        p.cleanup();
      }
    },
  );
});
