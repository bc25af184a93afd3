/**
 * The CI recipes of examples/ci run as a CI job runs them: `pulumi-ci.sh preview|up|drift` in a
 * project directory with the real CLI, against the embedded server.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { run, runProcess } from "../../../scripts/run.ts";
import { admin, api } from "../../helpers/http.ts";
import { programDir, type ProgramDir } from "../../helpers/program-dir.ts";
import { useTestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";

const SCRIPT = join(REPO_ROOT, "examples", "ci", "pulumi-ci.sh");
const STACK_LIFE_MS = 300_000;

/** `pulumi-ci.sh <mode>` in the project: its exit code and everything it printed. */
async function recipe(p: ProgramDir, mode: string): Promise<{ code: number; out: string }> {
  const env = { ...p.env, PULUMI_STACK: "prod" };
  const r = await runProcess("bash", [SCRIPT, mode], { cwd: p.project, env, allowFailure: true });
  return { code: r.code ?? -1, out: r.stdout + r.stderr };
}

describe("examples/ci/pulumi-ci.sh", () => {
  const server = useTestServer();

  it(
    "preview and up deploy the stack; the drift check passes on it, then fails naming the resource and property changed behind the stack's back",
    { timeout: STACK_LIFE_MS },
    async () => {
      const p = programDir("ci-stack", join(import.meta.dirname, "fixtures", "ci-stack"), server);
      const pulumi = (...args: string[]) =>
        run("pulumi", [...args, "--non-interactive"], { cwd: p.project, env: p.env });
      try {
        await pulumi("stack", "init", "prod");
        await pulumi("config", "set", "cws:baseUrl", server.baseUrl);
        await pulumi("config", "set", "cws:org", "demo");
        await pulumi("config", "set", "--secret", "cws:apiToken", "demo-token");

        const preview = await recipe(p, "preview");
        expect(preview.code, preview.out).toBe(0);
        expect(preview.out).toMatch(/\+ 3 to create/);
        expect((await liveResources(server)).workloads).toEqual([]);

        const up = await recipe(p, "up");
        expect(up.code, up.out).toBe(0);
        expect(up.out).toMatch(/\+ 3 created/);

        const clean = await recipe(p, "drift");
        expect(clean.code, clean.out).toBe(0);
        expect(clean.out).toContain("no drift");

        // Someone changes the image by hand, on the service.
        const [web] = (await liveResources(server)).workloads;
        await api(server, "PATCH", `/orgs/demo/workloads/${web!.uid}`, { image: "nginx:1.28" });
        const drifted = await recipe(p, "drift");
        expect(drifted.code, drifted.out).toBe(1);
        expect(drifted.out).toMatch(/^drift: web \(cws:index:Workload\) would update: image$/m);
        expect(drifted.out).not.toMatch(/^drift: deployKey/m);

        // `up` puts the service back as the program says; the next check is clean.
        expect((await recipe(p, "up")).code).toBe(0);
        const live = await api<{ image: string }>(server, "GET", `/orgs/demo/workloads/${web!.uid}`);
        expect(live.image).toBe("nginx:1.27");
        expect((await recipe(p, "drift")).code).toBe(0);

        // A check whose reads fail is not "drift": exit 2, with the error.
        await admin(server, "POST", "/faults", {
          method: "GET",
          path: "^/orgs/demo/workloads/",
          count: 1000,
          status: 500,
        });
        const failing = await recipe(p, "drift");
        await admin(server, "DELETE", "/faults");
        expect(failing.code, failing.out).toBe(2);
        expect(failing.out).toContain("the drift check could not run");
        expect(failing.out).not.toMatch(/^drift:/m);

        await pulumi("destroy", "--yes", "--skip-preview");
      } finally {
        p.cleanup();
      }
    },
  );

  it("refuses to run without a stack name, naming PULUMI_STACK", async () => {
    const env = { PATH: process.env.PATH ?? "" };
    const out = await runProcess("bash", [SCRIPT, "drift"], { env, allowFailure: true });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("PULUMI_STACK is not set");
  });
});
