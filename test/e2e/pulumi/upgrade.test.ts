/**
 * Stacks written by every released version keep working with this one. For each recorded set
 * (test/fixtures/upgrade/<version>/<front end>/, made by `npm run record-upgrade-fixtures`): the
 * current server starts on a copy of the recorded data dir, the recorded state is imported into a
 * fresh backend, and with the current provider the stack previews and refreshes with no changes,
 * takes a real change (an env var) as an in-place update, and destroys leaving the org empty.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import {
  CONFIG_FILE,
  RECORDED_SECRETS,
  UPGRADE_FRONT_ENDS,
  upgradeStack,
  type UpgradeStack,
} from "../../../scripts/upgrade-stacks.ts";
import { api, DEMO_TOKEN } from "../../helpers/http.ts";
import { filesContaining } from "../../helpers/program-dir.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";
import { waitFor } from "../../helpers/wait.ts";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "upgrade");
const VERSIONS = readdirSync(FIXTURES).sort();
const NOTHING_LEFT = { workloads: [], volumes: [], ssh_keys: [], templates: [], sandbox_templates: [] };
/** Eight CLI runs over a dozen resources, each starting the provider, on a busy two-core machine. */
const STACK_LIFE_MS = 300_000;

interface Workload {
  uid: string;
  type: string;
  state: { status: string };
  envs?: { name: string; value: string }[];
}

interface RecordedResource {
  type: string;
  id?: string;
  outputs?: { status?: string; name?: string };
}

/**
 * The reference server does not keep a sandbox's processes across a restart (its sandboxes come
 * back in `error`, docs: reference server). The recorded stack's sandboxes were running or frozen
 * on the service; put them back the way the state recorded them, as the service would still have
 * them, before the provider looks.
 */
async function restoreSandboxes(server: TestServer, recorded: RecordedResource[]): Promise<void> {
  const sandboxes = recorded.filter((r) => /(^|:)Sandbox$/.test(r.type) && r.id);
  for (const r of sandboxes) await api(server, "POST", `/orgs/demo/workloads/${r.id}/deploy`);
  for (const r of sandboxes) {
    await waitFor(async () => {
      const w = await api<Workload>(server, "GET", `/orgs/demo/workloads/${r.id}`);
      return w.state.status === "running";
    }, `sandbox ${r.id} running again`);
    if (r.outputs?.status === "frozen") await api(server, "POST", `/orgs/demo/workloads/${r.id}/freeze`);
  }
}

function recordedResources(state: string): RecordedResource[] {
  return (JSON.parse(state) as { deployment: { resources: RecordedResource[] } }).deployment.resources;
}

describe.each(VERSIONS)("a stack recorded with %s", (version) => {
  it.each(UPGRADE_FRONT_ENDS)(
    "%s front end: imports, previews and refreshes clean, updates in place, destroys",
    { timeout: STACK_LIFE_MS },
    async (frontEnd) => {
      const recordedDir = join(FIXTURES, version, frontEnd);
      const dataDir = mkdtempSync(join(tmpdir(), "cws-upgrade-data-"));
      cpSync(join(recordedDir, "data"), dataDir, { recursive: true });
      const server = await startTestServer({ dataDir, sandboxRoot: true });
      let stack: UpgradeStack | undefined;
      try {
        const stateFile = join(recordedDir, "state.json");
        const recorded = recordedResources(readFileSync(stateFile, "utf8"));
        await restoreSandboxes(server, recorded);

        stack = await upgradeStack(frontEnd, recordedDir, server.baseUrl, DEMO_TOKEN);
        // The stack's own config file: the salt of the state's secrets, and the program's config.
        writeFileSync(join(stack.projectDir, CONFIG_FILE), readFileSync(join(recordedDir, CONFIG_FILE)));
        await stack.pulumi("stack", "import", "--file", stateFile);

        await stack.pulumi("preview", "--expect-no-changes");
        await stack.pulumi("refresh", "--yes", "--skip-preview", "--expect-no-changes");
        await stack.pulumi("preview", "--expect-no-changes");

        // A real change: one env var of the RENTAL workload, applied in place (same uid).
        const web = recorded.find((r) => /Workload$/.test(r.type) && r.outputs?.name === "upgrade-web");
        expect(web?.id).toBeTruthy();
        await stack.pulumi("config", "set", "release", "v2");
        const up = await stack.pulumi("up", "--yes", "--skip-preview");
        expect(up).toMatch(/~ 1 updated/);
        expect(up).not.toMatch(/replaced|created|deleted/);
        const live = await api<Workload>(server, "GET", `/orgs/demo/workloads/${web!.id}`);
        expect(live.envs).toContainEqual({ name: "RELEASE", value: "v2" });
        expect(live.state.status).toBe("running");
        for (const s of Object.values(RECORDED_SECRETS))
          expect(filesContaining(stack.stateDir, s)).toEqual([]);

        await stack.pulumi("destroy", "--yes", "--skip-preview");
        expect(await liveResources(server)).toEqual(NOTHING_LEFT);
      } finally {
        await stack?.cleanup();
        await server.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
