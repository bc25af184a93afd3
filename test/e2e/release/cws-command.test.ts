/**
 * The `cws` command from the release's `cws_<version>_linux_amd64.tar.gz`, with no Node.js of its
 * own: `cws serve` runs the reference server, whose sandboxes run their agent with the server's
 * own executable started as `node` (cli/executable.ts), `cws adopt` reads an org from it, and
 * the commands on an org's workloads (`cws list`, `cws exec`) run against it, and `cws policy check`
 * judges a plan.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CwsClient } from "../../../client/index.ts";
import { run, runProcess } from "../../../scripts/run.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { hostRelease, VERSION } from "../../helpers/release.ts";

describe("the cws command from the release", () => {
  let root: string;
  let cws: string;
  let server: ChildProcess | undefined;
  let baseUrl: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const release = await hostRelease();
    root = mkdtempSync(join(tmpdir(), "cws-release-command-"));
    await run("tar", ["-xzf", join(release, `cws_${VERSION}_linux_amd64.tar.gz`), "-C", root]);
    cws = join(root, "cws");
    // Its files go to a fresh HOME's cache, as on a new machine.
    env = { ...process.env, HOME: join(root, "home"), XDG_CACHE_HOME: join(root, "home", ".cache") };
    server = spawn(cws, ["serve", "--port", "0", "--quiet", "--data-dir", join(root, "data")], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    for await (const line of createInterface({ input: server.stderr! })) {
      const m = / listening on (\S+) /.exec(line);
      if (m) {
        baseUrl = m[1]!;
        break;
      }
    }
  }, 600_000);
  afterAll(() => {
    server?.kill("SIGTERM");
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("serves a sandbox whose agent runs on the release's executable", { timeout: 120_000 }, async () => {
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v3$/);
    const client = new CwsClient({ baseUrl, org: "demo", token: DEMO_TOKEN });
    const w = await client.workloads.create({
      type: "SANDBOX",
      name: "release-box",
      image: "tpl-ubuntu-headless",
    });
    try {
      await client.workloads.deploy(w.uid);
      await client.workloads.waitForStatus(w.uid, "running", { timeoutMs: 60_000 });
      const r = await client.sandboxes.exec(w.uid, {
        cmd: "echo from the sandbox; readlink /proc/$PPID/exe",
      });
      expect(r.stdout).toBe("from the sandbox\n/.cws/node\n");
      const day2 = (args: string[]) =>
        runProcess(cws, args, {
          env: { ...env, CWS_BASE_URL: baseUrl, CWS_ORG: "demo", CWS_API_TOKEN: DEMO_TOKEN },
          allowFailure: true,
        });
      const listed = await day2(["list", "Sandbox", "--json"]);
      expect(listed.code, listed.output).toBe(0);
      expect(JSON.parse(listed.stdout)).toMatchObject([{ uid: w.uid, name: "release-box" }]);
      const exited = await day2(["exec", w.uid, "--", "sh", "-c", "echo out; exit 7"]);
      expect({ code: exited.code, stdout: exited.stdout }).toEqual({ code: 7, stdout: "out\n" });
    } finally {
      await client.workloads.delete(w.uid);
    }
  });

  it("adopt reads the org from the server it serves", { timeout: 60_000 }, async () => {
    const r = await runProcess(cws, ["adopt", "--format", "pulumi", "--url", baseUrl, "--org", "demo"], {
      env: { ...env, CWS_API_TOKEN: DEMO_TOKEN },
      allowFailure: true,
    });
    expect(r.code, r.output).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty("resources");
  });

  it(
    "policy check blocks a plan over the guardrails, with the YAML file read inside",
    { timeout: 60_000 },
    async () => {
      const plan = join(root, "plan.json");
      const change = (address: string) => ({
        address,
        mode: "managed",
        type: "cws_workload",
        change: {
          actions: ["create"],
          before: null,
          after: { type: "RENTAL", resource_name: "gpu-rental-medium", project_id: "ml" },
          after_unknown: {},
        },
      });
      writeFileSync(
        plan,
        JSON.stringify({
          format_version: "1.2",
          resource_changes: ["a", "b", "c"].map((k) => change(`cws_workload.${k}`)),
        }),
      );
      const guardrails = join(root, "guardrails.yaml");
      writeFileSync(
        guardrails,
        "cws-resource-table:\n  enforcementLevel: mandatory\n  resources:\n    gpu-rental-medium: { usdPerHour: 1.6, gpus: 2 }\ncws-gpus-per-stack: { enforcementLevel: mandatory, max: 4 }\n",
      );
      const r = await runProcess(cws, ["policy", "check", plan, "--config", guardrails], {
        env,
        allowFailure: true,
      });
      expect(r.code, r.output).toBe(1);
      expect(r.stderr).toContain(
        "error: cws-gpus-per-stack (mandatory): stack default would hold 6 GPUs, over the 4 allowed: cws_workload.a (2), cws_workload.b (2), cws_workload.c (2)",
      );
    },
  );
});
