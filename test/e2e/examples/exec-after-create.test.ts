/**
 * examples/exec-after-create: the command Terraform's `cws_workload_exec` runs from
 * `after_create`, run by a Pulumi resource hook (Pulumi 3.276) with the typed client. `pulumi up`
 * creates the sandbox, runs the command once in it (its output on the sandbox's line, what it
 * wrote there afterwards), and the next `up` runs nothing; a command that exits non-zero fails
 * `up` with the code and the last lines of output, and the sandbox stays in the stack.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CwsClient } from "../../../client/index.ts";
import program from "../../../examples/exec-after-create/index.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, cwsStack, liveResources } from "../../helpers/stacks.ts";

describe("examples/exec-after-create", () => {
  let server: TestServer;
  let client: CwsClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: DEMO_TOKEN });
  });
  afterAll(async () => server?.close());

  it("runs the command once after the create, shows its output, and fails up on a non-zero exit", async () => {
    const ok = await cwsStack(server, "exec-after-create", program);
    try {
      let output = "";
      const up = await ok.stack.up({ onOutput: (s) => (output += s) });
      expect(up.summary.result).toBe("succeeded");
      expect(output).toMatch(/migrating schema/);
      expect(output).toMatch(/schema at v3/);
      const uid = up.outputs.uid!.value as string;
      expect((await client.sandboxes.readFile(uid, "/tmp/schema-version")).toString()).toBe("v3\n");
      // Nothing to create: the hook does not run again.
      await client.sandboxes.writeFile(uid, "/tmp/schema-version", "v2\n");
      let again = "";
      await ok.stack.up({ onOutput: (s) => (again += s) });
      expect(again).not.toMatch(/migrating schema/);
      expect((await client.sandboxes.readFile(uid, "/tmp/schema-version")).toString()).toBe("v2\n");
      expect((await ok.stack.preview()).changeSummary).toEqual({ same: 2 });
      await ok.stack.destroy();
    } finally {
      await ok.cleanup();
    }

    const failing = await cwsStack(server, "exec-after-create-fails", program, {
      migration: {
        value: "for i in $(seq 1 25); do echo step-$i; done; echo 'table users missing' >&2; exit 4",
      },
    });
    try {
      const error = await failing.stack.up().then(
        () => undefined,
        (e: unknown) => String(e),
      );
      // The sandbox's diagnostic: the code and the last 20 lines, stderr's last.
      const failure = /Sandbox \(box\):\n\s*error: after hook "migrate" failed: ([\s\S]*?)\n\n/.exec(
        error!,
      )?.[1];
      expect(failure?.split("\n").map((l) => l.trim())).toEqual([
        "the migration exited with code 4; last lines of output:",
        ...Array.from({ length: 19 }, (_, i) => `step-${i + 7}`),
        "stderr: table users missing",
      ]);
      expect((await liveResources(server)).workloads.map((w) => w.name)).toEqual(["migrate-box"]);
      await failing.stack.destroy();
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    } finally {
      await failing.cleanup();
    }
  }, 300_000);
});
