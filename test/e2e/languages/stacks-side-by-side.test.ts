/**
 * One program per language, TypeScript (the dynamic provider, inline), Python (the native plugin
 * through Python's Automation API) and YAML (the native plugin through the real CLI), none of them
 * naming its objects, each deployed as three stacks (pr-1, pr-2, pr-3) in one org: nine sets of
 * objects whose names are all distinct (auto-names), and every stack previews clean afterwards.
 */
import * as pulumi from "@pulumi/pulumi";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineStack, type OfflineStack } from "../../../scripts/offline-stack.ts";
import { run } from "../../../scripts/run.ts";
import { VENV_PYTHON } from "../../../scripts/toolchain/languages.ts";
import { printedOutputs, programDir, type ProgramDir } from "../../helpers/program-dir.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, liveResources, stackConfig } from "../../helpers/stacks.ts";
import { SshKey, Volume, Workload } from "../../../sdk/index.ts";

const FIXTURES = join(import.meta.dirname, "fixtures", "review-stacks");
const STACKS = ["pr-1", "pr-2", "pr-3"];
type Names = { key: string; data: string; web: string };

/** The TypeScript program: the same three objects as python/main.py and yaml/Pulumi.yaml. */
async function typescriptProgram() {
  const key = new SshKey("deploy", {
    publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ci@review",
  });
  const data = new Volume("data", { sizeInMb: 256, resourceName: "gpu-rental-small" });
  const web = new Workload("web", {
    type: "RENTAL",
    image: "nginx:1.27",
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
    sshKeys: [key.uid],
    volumes: [{ uid: data.uid, mountPath: "/data" }],
  });
  return { names: pulumi.all({ key: key.name, data: data.name, web: web.name }) };
}

describe("one program per language deployed as three stacks in one org", () => {
  let server: TestServer;
  const cleanups: (() => unknown)[] = [];
  beforeAll(async () => {
    if (!existsSync(VENV_PYTHON))
      throw new Error(`${VENV_PYTHON} is missing: run \`npm run languages:setup\``);
    server = await startTestServer({ provisionDelayMs: 20 });
  });
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await server?.close();
  });

  it(
    "TypeScript, Python and YAML: nine sets of objects with distinct names, each stack previews clean",
    {
      timeout: 600_000,
    },
    async () => {
      // TypeScript: three stacks in one shared (file) backend.
      const backend = mkdtempSync(join(tmpdir(), "cws-review-ts-"));
      cleanups.push(() => rmSync(backend, { recursive: true, force: true }));
      const ts: OfflineStack[] = [];
      for (const stackName of STACKS) {
        const s = await offlineStack({
          projectName: "review-ts",
          stackName,
          program: typescriptProgram,
          config: stackConfig(server),
          backendUrl: `file://${backend}`,
        });
        cleanups.push(() => s.cleanup());
        ts.push(s);
      }

      // Python: the program run inline by Python's Automation API, one process per stack.
      const py = programDir("review-python", join(FIXTURES, "python"), server);
      cleanups.push(() => py.cleanup());
      const python = (stack: string, command: string) =>
        run(VENV_PYTHON, ["main.py", command], { cwd: py.project, env: { ...py.env, PULUMI_STACK: stack } });

      // YAML: the real CLI in the project directory, as a CI job runs it.
      const yaml = programDir("review-yaml", join(FIXTURES, "yaml"), server);
      cleanups.push(() => yaml.cleanup());
      const pulumiCli = (p: ProgramDir, stack: string, ...args: string[]) =>
        run("pulumi", [...args, "--stack", stack, "--non-interactive"], { cwd: p.project, env: p.env });
      for (const stack of STACKS) {
        await run("pulumi", ["stack", "init", stack, "--non-interactive"], {
          cwd: yaml.project,
          env: yaml.env,
        });
        await pulumiCli(yaml, stack, "config", "set", "cws:baseUrl", server.baseUrl);
        await pulumiCli(yaml, stack, "config", "set", "cws:org", "demo");
        await pulumiCli(yaml, stack, "config", "set", "--secret", "cws:apiToken", "demo-token");
      }

      // Each language's three stacks go up at once; the languages one after the other.
      const names: Record<string, Names> = {};
      const ups = await Promise.all(ts.map((s) => s.stack.up()));
      ups.forEach((u, i) => (names[`ts/${STACKS[i]}`] = u.outputs.names!.value as Names));
      const printed = await Promise.all(STACKS.map((stack) => python(stack, "up")));
      printed.forEach((out, i) => (names[`python/${STACKS[i]}`] = printedOutputs(out).names as Names));
      await Promise.all(STACKS.map((stack) => pulumiCli(yaml, stack, "up", "--yes", "--skip-preview")));
      for (const stack of STACKS)
        names[`yaml/${stack}`] = (
          JSON.parse(await pulumiCli(yaml, stack, "stack", "output", "--json")) as { names: Names }
        ).names;

      // Nine sets of three objects, every name distinct, each an auto-name of its logical name.
      const all = Object.values(names).flatMap((n) => [n.key, n.data, n.web]);
      expect(all).toHaveLength(27);
      expect(new Set(all).size).toBe(27);
      for (const n of Object.values(names)) {
        expect(n.key).toMatch(/^deploy-[0-9a-f]{7}$/);
        expect(n.data).toMatch(/^data-[0-9a-f]{7}$/);
        expect(n.web).toMatch(/^web-[0-9a-f]{7}$/);
      }
      const live = await liveResources(server);
      expect([...live.ssh_keys, ...live.volumes, ...live.workloads].map((o) => o.name).sort()).toEqual(
        [...all].sort(),
      );
      expect(live.workloads.every((w) => w.state?.status === "running")).toBe(true);

      // Every stack's preview is clean.
      await Promise.all(ts.map((s) => s.stack.preview({ expectNoChanges: true })));
      await Promise.all(STACKS.map((stack) => python(stack, "preview")));
      await Promise.all(STACKS.map((stack) => pulumiCli(yaml, stack, "preview", "--expect-no-changes")));

      await Promise.all(ts.map((s) => s.stack.destroy()));
      await Promise.all(STACKS.map((stack) => python(stack, "destroy")));
      await Promise.all(STACKS.map((stack) => pulumiCli(yaml, stack, "destroy", "--yes", "--skip-preview")));
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    },
  );
});
