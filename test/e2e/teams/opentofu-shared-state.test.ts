/**
 * OpenTofu and Terraform as teams run them: examples/ci/opentofu with its state in the `pg`
 * backend on a PostgreSQL cluster started here, two checkouts (two CI jobs) running the real CLI
 * at once, under each HCL tool (one cluster, a schema of its own for each tool).
 *
 * - Two runs of one workspace at once: one fails on the state lock with the tool's message, the
 *   other completes; a run given `-lock-timeout` waits for the lock instead, then finds the
 *   other's work done. The state is whole and the service holds each object once.
 * - Two workspaces (review environments) of one configuration at once in one org: both complete,
 *   each owns its own objects (named after the workspace), and destroying one leaves the other's
 *   untouched.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, liveObjects, liveResources } from "../../helpers/stacks.ts";
import { BACKEND_START_MS, startPostgres, type Postgres } from "../../helpers/team-backends.ts";
import {
  HCL_TOOLS,
  expectExit,
  requireTool,
  toolTitle,
  tofuProject,
  type TofuProject,
} from "../../helpers/tofu.ts";

const EXAMPLE = fileURLToPath(new URL("../../../examples/ci/opentofu", import.meta.url));
const SCENARIO_MS = 480_000;
const LOCK_REFUSED = /Error acquiring the state lock/;

const TOOLS = HCL_TOOLS.map((tool) => ({ tool, title: toolTitle(tool) }));

let pg: Postgres;
beforeAll(async () => {
  pg = await startPostgres();
}, BACKEND_START_MS);
afterAll(async () => {
  await pg?.close();
});

describe.each(TOOLS)("$title workspaces sharing a pg backend (PostgreSQL) and one org", ({ tool }) => {
  /** The backend's schema of this tool's states (PG_SCHEMA_NAME), so the tools share the cluster. */
  const schema = `${tool.name}_state`;
  let server: TestServer;
  const projects: TofuProject[] = [];
  beforeAll(async () => {
    requireTool(tool);
    server = await startTestServer({ provisionDelayMs: 20 });
  }, 30_000);
  afterAll(async () => {
    for (const p of projects.splice(0)) p.cleanup();
    await server?.close();
  });

  /** A checkout of the configuration, initialised against the shared state, in `workspace`. */
  async function checkout(workspace: string): Promise<TofuProject> {
    const p = tofuProject(server, EXAMPLE, { PG_CONN_STR: pg.url, PG_SCHEMA_NAME: schema }, tool);
    projects.push(p);
    expectExit(await p.run("init"), 0);
    const selected = await p.run("workspace", "select", "-or-create=true", workspace);
    expectExit(selected, 0);
    return p;
  }

  /** uid → name of the objects a workspace's state holds (`tofu show -json`). */
  async function owned(p: TofuProject): Promise<Map<string, string>> {
    const shown = JSON.parse(expectExit(await p.run("show", "-json"), 0).stdout) as {
      values?: { root_module?: { resources?: { values: { id: string; name: string } }[] } };
    };
    const resources = shown.values?.root_module?.resources ?? [];
    return new Map(resources.map((r) => [r.values.id, r.values.name]));
  }

  it(
    "two runs of one workspace at once: one fails on the lock, the other completes; -lock-timeout waits instead",
    { timeout: SCENARIO_MS },
    async () => {
      const [a, b] = [await checkout("main"), await checkout("main")];
      const [ra, rb] = await Promise.all([a.run("apply", "-auto-approve"), b.run("apply", "-auto-approve")]);
      const runs = [ra, rb].sort((x, y) => x.code - y.code);
      expect(runs.map((r) => r.code)).toEqual([0, 1]);
      expect(runs[0]!.output).toMatch(/Apply complete! Resources: 3 added, 0 changed, 0 destroyed/);
      expect(runs[1]!.output).toMatch(LOCK_REFUSED);

      // The state is whole (both checkouts read it) and the service holds its objects once.
      const state = await owned(b);
      expect([...state.values()].sort()).toEqual(["data-main", "deploy-main", "web-main"]);
      expect(await owned(a)).toEqual(state);
      expect(await liveObjects(server)).toEqual(state);
      expect(expectExit(await b.run("plan", "-detailed-exitcode"), 0).output).toMatch(/No changes/);

      // With -lock-timeout the second run waits for the first, then has nothing left to do.
      const image = ["-var", "image=nginx:1.28"];
      const [wa, wb] = await Promise.all([
        a.run("apply", "-auto-approve", "-lock-timeout=300s", ...image),
        b.run("apply", "-auto-approve", "-lock-timeout=300s", ...image),
      ]);
      expectExit(wa, 0);
      expectExit(wb, 0);
      const summaries = [wa, wb].map(
        (r) => /Apply complete! Resources: (\d+) added, (\d+) changed/.exec(r.output)?.[0],
      );
      expect(summaries.sort()).toEqual([
        "Apply complete! Resources: 0 added, 0 changed",
        "Apply complete! Resources: 0 added, 1 changed",
      ]);
      expect(await liveObjects(server)).toEqual(state);

      expectExit(await a.run("destroy", "-auto-approve"), 0);
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    },
  );

  it(
    "two workspaces of one configuration at once: both complete, each owns its own objects, destroying one leaves the other",
    { timeout: SCENARIO_MS },
    async () => {
      const [pr1, pr2] = [await checkout("pr-1"), await checkout("pr-2")];
      // Every lock of the pg backend briefly takes the schema's workspace-creation lock too, so
      // two workspaces locking at the same instant can collide: CI passes -lock-timeout.
      const [r1, r2] = await Promise.all([
        pr1.run("apply", "-auto-approve", "-lock-timeout=300s"),
        pr2.run("apply", "-auto-approve", "-lock-timeout=300s"),
      ]);
      for (const r of [r1, r2]) expect(expectExit(r, 0).output).toMatch(/Resources: 3 added/);

      const [mine, theirs] = [await owned(pr1), await owned(pr2)];
      expect([...mine.values()].sort()).toEqual(["data-pr-1", "deploy-pr-1", "web-pr-1"]);
      expect([...theirs.values()].sort()).toEqual(["data-pr-2", "deploy-pr-2", "web-pr-2"]);
      expect(await liveObjects(server)).toEqual(new Map([...mine, ...theirs]));
      // Every workspace is a row of the backend's table in the shared database.
      expect(await pg.sql(`select name from ${schema}.states order by name`)).toMatch(/pr-1\npr-2/);

      expectExit(await pr1.run("destroy", "-auto-approve"), 0);
      expect(await liveObjects(server)).toEqual(theirs);
      expect(expectExit(await pr2.run("plan", "-detailed-exitcode"), 0).output).toMatch(/No changes/);
      expectExit(await pr2.run("destroy", "-auto-approve"), 0);
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    },
  );
});
