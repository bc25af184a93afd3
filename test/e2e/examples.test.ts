import type { PulumiFn } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import rentalService from "../../examples/rental-service/index.ts";
import sandboxFleet from "../../examples/sandbox-fleet/index.ts";
import vmAndBm from "../../examples/vm-and-bm/index.ts";
import workloadTemplates from "../../examples/workload-templates/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { cwsStack, liveResources } from "../helpers/stacks.ts";

const EXAMPLES: [string, PulumiFn, number][] = [
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
