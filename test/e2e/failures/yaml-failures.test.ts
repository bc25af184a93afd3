/**
 * When an up fails, the error says why, as a CI job meets it: a YAML program run by the real
 * `pulumi up` (the native plugin on PATH), five workloads each failing its own staged way
 * (staged.ts). The up's output names each failing event and its last log line and holds no planted
 * secret, nor does the state; the stack keeps every workload as partial state. Then the functions
 * read what happened to those failed workloads, from a second YAML program's `pulumi up` and from
 * `pulumi do` (stateless, the plugin named by its path): events and log lines, secrets redacted.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, runProcess } from "../../../scripts/run.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
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
const READS = join(import.meta.dirname, "fixtures", "yaml-reads");
/** The plugin as `pulumi do --package` names it: its path. */
const PLUGIN = join(REPO_ROOT, "bin", "pulumi-resource-cws");
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

  // After the failed up above, on the same server: its five workloads are what the reads find.
  it(
    "the functions return the failed workloads' events and log lines, secrets redacted, from a program and from `pulumi do`",
    { timeout: RUN_MS },
    async () => {
      const p = programDir("yaml-reads", READS, server);
      const pulumi = (...args: string[]) =>
        run("pulumi", [...args, "--non-interactive"], { cwd: p.project, env: p.env });
      const planted = (text: string) => {
        for (const s of PLANTED) expect(text, `a planted secret (${s.slice(0, 6)}…)`).not.toContain(s);
      };
      try {
        await pulumi("stack", "init", "dev");
        await pulumi(
          "config",
          "set-all",
          "--plaintext",
          "prefix=yaml",
          "--secret",
          `registryPassword=${REGISTRY_PASSWORD}`,
          "--secret",
          `vmPassword=${VM_PASSWORD}`,
        );
        await pulumi("up", "--yes", "--skip-preview");
        const text = await pulumi("stack", "output", "--json", "--show-secrets");
        planted(text);
        const out = JSON.parse(text) as {
          pullStatus: string;
          pullMessage: string;
          pullAuth: unknown;
          pullEvents: { reason?: string; message?: string; workloadUid: string }[];
          exitLines: string[];
          loopUid: string;
          loopLines: string[];
          vmLines: string[];
        };
        expect(out.pullStatus).toBe("error");
        expect(out.pullMessage).toMatch(/pull access denied \(tried credentials ci\/\[secret\]\)/);
        // The registry's credentials stay a secret, as on a Workload resource (without its password).
        expect(out.pullAuth).toEqual({ server: "ghcr.io", username: "ci" });
        expect(JSON.parse(await pulumi("stack", "output", "--json")).pullAuth).toBe("[secret]");
        expect(out.pullEvents.find((e) => e.reason === "Failed")?.message).toMatch(
          /pull access denied \(tried credentials ci\/\[secret\]\)/,
        );
        expect(out.exitLines).toHaveLength(2);
        expect(out.exitLines[0]).toContain("connecting to db with password [secret]");
        expect(out.exitLines[1]).toContain('fatal: role "app" does not exist');
        expect(out.loopLines.join("\n")).toContain("calling the API with token [secret]");
        expect(out.loopLines.join("\n")).toContain("panic: assignment to entry in nil map");
        expect(out.vmLines.join("\n")).toContain("cloud-init: setting the password [secret]");
        for (const s of PLANTED) expect(filesContaining(p.state, s)).toEqual([]);

        // `pulumi do`, stateless: the flags a user types, then arguments a flag cannot carry (a list) from a file.
        const loop = JSON.parse(
          await pulumi(
            "do",
            "--package",
            PLUGIN,
            "cws:getWorkloadLogs",
            "--uid",
            out.loopUid,
            "--previous",
            "--tail",
            "2",
          ),
        ) as { lines: string[] };
        expect(loop.lines).toHaveLength(2);
        expect(loop.lines[0]).toContain("calling the API with token [secret]");
        expect(loop.lines[1]).toContain("panic: assignment to entry in nil map");
        planted(JSON.stringify(loop));
        const input = join(p.project, "events.pp");
        writeFileSync(
          input,
          `uid = "${out.pullEvents[0]!.workloadUid}"\nredact = ["${REGISTRY_PASSWORD}"]\n`,
        );
        const events = await pulumi(
          "do",
          "--package",
          PLUGIN,
          "cws:getWorkloadEvents",
          "--input",
          "pcl",
          "--input-file",
          input,
        );
        planted(events);
        expect(events).toMatch(/pull access denied \(tried credentials ci\/\[secret\]\)/);
        const refused = await runProcess(
          "pulumi",
          [
            "do",
            "--package",
            PLUGIN,
            "cws:getWorkloadLogs",
            "--uid",
            out.loopUid,
            "--tail",
            "-2",
            "--non-interactive",
          ],
          { cwd: p.project, env: p.env, allowFailure: true },
        );
        expect(refused.code).not.toBe(0);
        expect(refused.output).toContain("tail must be a non-negative integer");
      } finally {
        p.cleanup();
      }
    },
  );
});
