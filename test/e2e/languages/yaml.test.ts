/**
 * YAML programs run by the real CLI in a project directory, as a CI job runs `pulumi up`: the
 * YAML language host beside the CLI, the native plugin on PATH.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { run } from "../../../scripts/run.ts";
import { api } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";
import { filesContaining, programDir, type ProgramDir } from "../../helpers/program-dir.ts";

const EVERY_RESOURCE = join(import.meta.dirname, "fixtures", "yaml-every-resource");
/** A whole stack life (eight to ten CLI runs, each starting the plugin) on a busy two-core machine. */
const STACK_LIFE_MS = 300_000;
const NOTHING_LEFT = { workloads: [], volumes: [], ssh_keys: [], templates: [], sandbox_templates: [] };

/** `pulumi <args>` in the project, with the stack's outputs as JSON where asked. */
function pulumi(p: ProgramDir, ...args: string[]): Promise<string> {
  return run("pulumi", [...args, "--non-interactive"], { cwd: p.project, env: p.env });
}

async function outputs(p: ProgramDir): Promise<Record<string, unknown>> {
  return JSON.parse(await pulumi(p, "stack", "output", "--json")) as Record<string, unknown>;
}

async function configure(p: ProgramDir, server: TestServer, secrets: Record<string, string>): Promise<void> {
  await pulumi(p, "config", "set", "cws:baseUrl", server.baseUrl);
  await pulumi(p, "config", "set", "cws:org", "demo");
  await pulumi(p, "config", "set", "--secret", "cws:apiToken", "demo-token");
  for (const [key, value] of Object.entries(secrets))
    await pulumi(p, "config", "set", "--secret", key, value);
}

describe("YAML programs through `pulumi up` on a project directory", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it(
    "examples/yaml-rental: stack init, config set, up, preview with no changes, refresh, destroy",
    { timeout: STACK_LIFE_MS },
    async () => {
      const p = programDir("yaml-rental", join(REPO_ROOT, "examples", "yaml-rental"), server);
      try {
        await pulumi(p, "stack", "init", "dev");
        await configure(p, server, { registryPassword: "yaml-registry-pass-41c7" });

        const up = await pulumi(p, "up", "--yes", "--skip-preview");
        expect(up).toMatch(/\+ 4 created/);
        const out = await outputs(p);
        expect(out).toMatchObject({ status: "running", costPerHour: expect.any(Number) });
        // The lookup through fn::invoke: the active regions of the service.
        expect((out.activeRegions as { uid: string }[]).map((r) => r.uid).sort()).toEqual([
          "eu-west-1",
          "us-east-1",
        ]);
        const live = await liveResources(server);
        const web = live.workloads.find((w) => w.uid === out.workloadUid);
        expect(web).toMatchObject({ name: "web", type: "RENTAL", state: { status: "running" } });
        expect(live.volumes.map((v) => v.uid)).toEqual([out.volumeUid]);
        expect(live.ssh_keys.map((k) => k.uid)).toEqual([out.sshKeyUid]);

        await pulumi(p, "preview", "--expect-no-changes");
        const refresh = await pulumi(p, "refresh", "--yes", "--skip-preview");
        expect(refresh).toMatch(/4 unchanged/);
        await pulumi(p, "preview", "--expect-no-changes");
        expect(filesContaining(p.state, "yaml-registry-pass-41c7")).toEqual([]);
        expect(filesContaining(p.state, "demo-token")).toEqual([]);

        await pulumi(p, "destroy", "--yes", "--skip-preview");
        expect(await liveResources(server)).toEqual(NOTHING_LEFT);
      } finally {
        p.cleanup();
      }
    },
  );

  it(
    "every resource and every function of the schema work from YAML",
    { timeout: STACK_LIFE_MS },
    async () => {
      // The fixture must name every resource type and call every function of schema.json.
      const schema = JSON.parse(readFileSync(join(REPO_ROOT, "schema.json"), "utf8")) as {
        resources: Record<string, unknown>;
        functions: Record<string, unknown>;
      };
      const program = readFileSync(join(EVERY_RESOURCE, "Pulumi.yaml"), "utf8");
      const short = (token: string) => token.replace(":index:", ":");
      const used = (token: string) => program.includes(`: ${short(token)}\n`);
      expect(Object.keys(schema.resources).filter((t) => !used(t))).toEqual([]);
      expect(Object.keys(schema.functions).filter((t) => !used(t))).toEqual([]);

      // Made outside the program: looked up by name through getSshKeys and getVolumes.
      const shared = {
        key: (
          await api<{ uid: string }>(server, "POST", "/orgs/demo/ssh-keys", {
            name: "shared-key",
            ssh_key:
              "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx shared@cws",
          })
        ).uid,
        volume: (
          await api<{ uid: string }>(server, "POST", "/orgs/demo/volumes", {
            name: "shared-data",
            size_in_mb: 256,
            resource_name: "gpu-rental-small",
          })
        ).uid,
      };
      const p = programDir("yaml-every-resource", EVERY_RESOURCE, server);
      try {
        await pulumi(p, "stack", "init", "every");
        await configure(p, server, { vmPassword: "yaml-vm-pass-8d2e" });

        const up = await pulumi(p, "up", "--yes", "--skip-preview");
        expect(up).toMatch(/\+ 10 created/);
        const out = await outputs(p);
        expect(out).toMatchObject({
          webStatus: "running",
          vmStatus: "running",
          vmImage: "ubuntu-22.04",
          bmStatus: "running",
          bmImage: "ubuntu-22.04-cuda",
          bmSshKeys: [shared.key],
          boxStatus: "running",
          snapshotStatus: "READY",
          fromSnapshotStatus: "frozen",
          fromSnapshotTemplate: out.snapshotUid,
          webTemplateVisibility: "PRIVATE",
          webReadName: "every-web",
          webReadStatus: "running",
        });
        // Read back through getWorkloadEvents and getWorkloadLogs: its deploy, and its last line.
        expect((out.webEvents as { reason?: string }[]).map((e) => e.reason)).toContain("Deploy");
        expect(out.webLogs).toEqual([expect.stringContaining("listening on 0.0.0.0:8080/tcp")]);
        expect(out.vmConfig).toBe("[secret]");
        expect((out.publicTemplates as { name: string }[]).map((t) => t.name)).toContain("nginx-web");
        const web = await api<{ volumes: { uid: string; mount_path: string }[] }>(
          server,
          "GET",
          `/orgs/demo/workloads/${out.webUid}`,
        );
        expect(web.volumes.map((v) => v.uid)).toContain(shared.volume);

        await pulumi(p, "preview", "--expect-no-changes");
        await pulumi(p, "refresh", "--yes", "--skip-preview");
        await pulumi(p, "preview", "--expect-no-changes");
        expect(filesContaining(p.state, "yaml-vm-pass-8d2e")).toEqual([]);

        await pulumi(p, "destroy", "--yes", "--skip-preview");
        await api(server, "DELETE", `/orgs/demo/volumes/${shared.volume}`);
        await api(server, "DELETE", `/orgs/demo/ssh-keys/${shared.key}`);
        expect(await liveResources(server)).toEqual(NOTHING_LEFT);
      } finally {
        p.cleanup();
      }
    },
  );
});
