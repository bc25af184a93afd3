import type { PulumiFn } from "@pulumi/pulumi/automation/index.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import rentalService from "../../../examples/rental-service/index.ts";
import sandboxFleet from "../../../examples/sandbox-fleet/index.ts";
import vmAndBm from "../../../examples/vm-and-bm/index.ts";
import workloadTemplates from "../../../examples/workload-templates/index.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { runnableBlocks } from "../../helpers/markdown.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { cwsStack, liveResources } from "../../helpers/stacks.ts";

/**
 * The README's TypeScript program, as a program: its block written to a file in the checkout
 * (.cache/ is ignored by git; `pulumi-cws/sdk` resolves from there as from a user's project),
 * imported anew each time the engine runs it; its exports become the stack's outputs.
 */
function readmeProgram(): PulumiFn {
  const [code] = runnableBlocks("README.md", "typescript");
  const dir = join(REPO_ROOT, ".cache", "readme-program");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "index.ts");
  writeFileSync(file, code!);
  // A fresh module per run: the engine runs the program once per operation.
  let run = 0;
  return async () => ({ ...((await import(`${file}?run=${++run}`)) as Record<string, unknown>) });
}

const EXAMPLES: [string, PulumiFn, number][] = [
  ["README.md", readmeProgram(), 3],
  ["rental-service", rentalService, 3],
  ["vm-and-bm", vmAndBm, 3],
  ["workload-templates", workloadTemplates, 2],
  ["sandbox-fleet", sandboxFleet, 5],
];

describe("examples deploy and destroy cleanly", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  for (const [name, program, resources] of EXAMPLES) {
    it(
      name,
      async () => {
        const s = await cwsStack(server, `example-${name}`, program);
        try {
          const up = await s.stack.up();
          expect(up.summary.result).toBe("succeeded");
          expect(up.summary.resourceChanges?.create).toBe(resources + 1);
          expect((await s.stack.preview()).changeSummary).toEqual({ same: resources + 1 });
          const refresh = await s.stack.refresh();
          expect(refresh.summary.resourceChanges).toEqual({ same: resources + 1 });
          await s.stack.destroy();
          const live = await liveResources(server);
          expect(live).toEqual({
            workloads: [],
            volumes: [],
            ssh_keys: [],
            templates: [],
            sandbox_templates: [],
          });
        } finally {
          await s.cleanup();
        }
      },
      300_000,
    );
  }
});
