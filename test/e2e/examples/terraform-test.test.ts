/**
 * examples/terraform-test: the module's `.tftest.hcl` files run by `tofu test` and
 * `terraform test` against the reference server, as their README says: the org's base state
 * (the `ci` SSH key the module installs) saved as the snapshot `base`, which each file restores
 * first through `cws snapshot restore` (the checkout's bin/cws on PATH). The server starts dirty
 * (a volume the snapshot does not hold): the files pass only because the restores drop it, and
 * the second file deploys only because the restore gives back the capacity the first sold out.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { admin, api } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { expectExit, HCL_TOOLS, requireTool, tofuProject, toolTitle } from "../../helpers/tofu.ts";

const EXAMPLE = join(REPO_ROOT, "examples", "terraform-test");
const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ci@example";

describe("examples/terraform-test", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it.each(HCL_TOOLS)(
    "$product test runs the module's test files, restoring a snapshot before each",
    async (tool) => {
      requireTool(tool);
      await admin(server, "POST", "/reset");
      await api(server, "POST", "/orgs/demo/ssh-keys", { name: "ci", ssh_key: PUBLIC_KEY });
      await admin(server, "PUT", "/snapshots/base");
      await api(server, "POST", "/orgs/demo/volumes", {
        name: "leftover",
        size_in_mb: 64,
        resource_name: "gpu-rental-small",
      });
      const p = tofuProject(server, EXAMPLE, { PATH: `${join(REPO_ROOT, "bin")}:${process.env.PATH}` }, tool);
      try {
        expectExit(await p.run("init"), 0);
        const test = expectExit(await p.run("test"), 0);
        expect(test.output, toolTitle(tool)).toMatch(/tests\/1_service\.tftest\.hcl\.\.\. pass/);
        expect(test.output).toMatch(/tests\/2_capacity\.tftest\.hcl\.\.\. pass/);
        expect(test.output).toMatch(/run "refuses_a_volume_too_small"\.\.\. pass/);
        expect(test.output).toMatch(/run "fits_in_the_capacity_of_the_base_state"\.\.\. pass/);
        expect(test.output).toMatch(/Success! 7 passed, 0 failed\./);
        // Each file destroyed what it made; the last restore left the base state's key and capacity.
        const { items } = await admin<{ items: { name: string; source: string }[] }>(
          server,
          "GET",
          "/inventory",
        );
        expect(items.find((i) => i.name === "gpu-rental-small")?.source).toBe("seed");
        expect(await admin(server, "GET", "/orgs/demo/resources")).toMatchObject({
          workloads: [],
          volumes: [],
          ssh_keys: [{ name: "ci" }],
        });
      } finally {
        p.cleanup();
      }
    },
  );
});
