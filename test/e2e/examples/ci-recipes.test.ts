/**
 * The CI recipes of examples/ci run as a CI job runs them: `pulumi-ci.sh
 * preview|up|drift|review|cleanup` in a project directory with the real CLI, against the embedded
 * server.
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
async function recipe(
  p: ProgramDir,
  mode: string,
  more: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  const env = { ...p.env, PULUMI_STACK: "prod", ...more };
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

  it(
    "review deploys two pull requests' stacks at once in one org, each with its own objects; cleanup destroys and removes one",
    { timeout: STACK_LIFE_MS },
    async () => {
      // Two CI jobs: two checkouts of the project, one state backend (a bucket in real life).
      const fixture = join(import.meta.dirname, "fixtures", "ci-review");
      const [a, b] = [programDir("ci-review", fixture, server), programDir("ci-review", fixture, server)];
      const backend = { PULUMI_BACKEND_URL: `file://${join(a.state, "backend")}` };
      const job = (p: ProgramDir, mode: string, stack: string) =>
        recipe(p, mode, { ...backend, PULUMI_STACK: stack });
      const outputs = async (stack: string) =>
        JSON.parse(
          await run("pulumi", ["stack", "output", "--json", "--stack", stack, "--non-interactive"], {
            cwd: a.project,
            env: { ...a.env, ...backend },
          }),
        ) as { webName: string };
      try {
        const [r7, r8] = await Promise.all([job(a, "review", "pr-7"), job(b, "review", "pr-8")]);
        for (const r of [r7, r8]) {
          expect(r.code, r.out).toBe(0);
          expect(r.out).toMatch(/\+ 3 created/);
        }
        const [web7, web8] = [(await outputs("pr-7")).webName, (await outputs("pr-8")).webName];
        expect(web7).toMatch(/^web-[0-9a-f]{7}$/);
        expect(web8).toMatch(/^web-[0-9a-f]{7}$/);
        expect(web7).not.toBe(web8);
        expect((await liveResources(server)).workloads.map((w) => w.name).sort()).toEqual(
          [web7, web8].sort(),
        );

        // A new push to pull request 7: the same stack, nothing to change.
        const again = await job(a, "review", "pr-7");
        expect(again.code, again.out).toBe(0);
        expect(again.out).toMatch(/3 unchanged/);

        // Pull request 7 closes: its stack goes, pull request 8's objects stay.
        const closed = await job(a, "cleanup", "pr-7");
        expect(closed.code, closed.out).toBe(0);
        expect(closed.out).toContain("the stack pr-7 is destroyed and removed");
        expect((await liveResources(server)).workloads.map((w) => w.name)).toEqual([web8]);
        const gone = await job(a, "cleanup", "pr-7");
        expect(gone.code, gone.out).toBe(0);
        expect(gone.out).toContain("nothing to clean up: there is no stack pr-7");

        expect((await job(b, "cleanup", "pr-8")).code).toBe(0);
        expect((await liveResources(server)).workloads).toEqual([]);
      } finally {
        a.cleanup();
        b.cleanup();
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
