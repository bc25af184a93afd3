/**
 * When an up fails, the error says why, as a CI job meets it: a YAML program run by the real
 * `pulumi up` (the native plugin on PATH), five workloads each failing its own staged way
 * (staged.ts). The up's output names each failing event and its last log line and holds no planted
 * secret, nor does the state; the stack keeps every workload as partial state.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, runProcess } from "../../../scripts/run.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { filesContaining, programDir } from "../../helpers/program-dir.ts";
import { liveResources } from "../../helpers/stacks.ts";
import {
  ENV_SECRET,
  expectDiagnosed,
  NEVER_READY_TIMEOUT_SEC,
  PLANTED,
  REGISTRY_PASSWORD,
  stage,
  stagedCases,
  VM_PASSWORD,
} from "./staged.ts";

const PROGRAM = join(import.meta.dirname, "fixtures", "yaml-failures");
/** stack init, the config, one up of five failing workloads and an export, each starting the CLI. */
const RUN_MS = 240_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ provisionDelayMs: 50 });
});
afterAll(async () => server?.close());

interface StateResource {
  type: string;
  urn: string;
  id?: string;
}

describe("a failed `pulumi up` of a YAML program", () => {
  it(
    "says each workload's failing event and last log line, leaks no secret, keeps every workload",
    { timeout: RUN_MS },
    async () => {
      const cases = stagedCases("yaml");
      await stage(server, cases);
      const p = programDir("yaml-failures", PROGRAM, server);
      const pulumi = (...args: string[]) =>
        run("pulumi", [...args, "--non-interactive"], { cwd: p.project, env: p.env });
      try {
        await pulumi("stack", "init", "dev");
        await pulumi("config", "set", "prefix", "yaml");
        await pulumi("config", "set", "neverReadyTimeoutSec", String(NEVER_READY_TIMEOUT_SEC));
        await pulumi("config", "set", "--secret", "dbPassword", ENV_SECRET);
        await pulumi("config", "set", "--secret", "registryPassword", REGISTRY_PASSWORD);
        await pulumi("config", "set", "--secret", "vmPassword", VM_PASSWORD);
        const up = await runProcess("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
          cwd: p.project,
          env: p.env,
          allowFailure: true,
        });
        expect(up.code, "the up should fail").not.toBe(0);
        expectDiagnosed(up.output, cases);

        const exported = await pulumi("stack", "export");
        const kept = (
          JSON.parse(exported) as { deployment: { resources: StateResource[] } }
        ).deployment.resources.filter((r) => r.type === "cws:index:Workload");
        const live = await liveResources(server);
        for (const [key, c] of Object.entries(cases)) {
          const w = live.workloads.find((x) => x.name === c.name);
          expect(kept.find((r) => r.urn.endsWith(`::${key}`))?.id, key).toBe(w?.uid);
          expect(w?.state?.status, key).toBe(key === "slow" ? "provisioning" : "error");
        }
        for (const s of PLANTED) {
          expect(exported).not.toContain(s);
          expect(filesContaining(p.state, s)).toEqual([]);
        }
      } finally {
        p.cleanup();
      }
    },
  );
});
