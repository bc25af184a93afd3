/** The Python example run as its users run it: `python main.py ...` (Python's Automation API, inline). */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VENV_PYTHON } from "../../../scripts/toolchain/languages.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { run } from "../../../scripts/run.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";
import { filesContaining, printedOutputs, programDir } from "../../helpers/program-dir.ts";
import { runnableBlocks } from "../../helpers/markdown.ts";

describe("examples/python-sandbox through Python's Automation API", () => {
  let server: TestServer;
  beforeAll(async () => {
    if (!existsSync(VENV_PYTHON))
      throw new Error(`${VENV_PYTHON} is missing: run \`npm run languages:setup\``);
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it(
    "deploys a sandbox, freezes it in place, previews no changes and destroys it",
    { timeout: 300_000 },
    async () => {
      const p = programDir("python-sandbox", join(REPO_ROOT, "examples", "python-sandbox"), server);
      const python = (...args: string[]) =>
        run(VENV_PYTHON, ["main.py", ...args], { cwd: p.project, env: p.env });
      try {
        const first = printedOutputs(await python("up"));
        expect(first).toMatchObject({
          status: "running",
          template: "ubuntu-headless",
          frozenCostPerHour: 0.004,
        });
        const sandbox = (await liveResources(server)).workloads.find((w) => w.uid === first.uid);
        expect(sandbox).toMatchObject({ name: "workbench", state: { status: "running" } });

        // Freezing is an update in place: same sandbox, now frozen.
        const frozen = printedOutputs(await python("up", "--frozen"));
        expect(frozen).toMatchObject({ uid: first.uid, status: "frozen" });
        const live = await liveResources(server);
        expect(live.workloads.map((w) => [w.uid, w.state?.status])).toEqual([[first.uid, "frozen"]]);

        await python("preview", "--frozen");
        // The program without --frozen differs from the stack: the preview says so and fails.
        await expect(python("preview")).rejects.toThrow(/no changes were expected/);
        expect(filesContaining(p.state, "demo-token")).toEqual([]);

        await python("destroy");
        expect((await liveResources(server)).workloads).toEqual([]);
      } finally {
        p.cleanup();
      }
    },
  );

  it(
    "the README's Python program deploys, previews no changes and destroys",
    { timeout: 300_000 },
    async () => {
      const [code] = runnableBlocks("README.md", "python");
      const source = mkdtempSync(join(tmpdir(), "cws-readme-python-"));
      writeFileSync(join(source, "program.py"), code!);
      copyFileSync(join(import.meta.dirname, "readme", "run_program.py"), join(source, "run_program.py"));
      const p = programDir("readme-python", source, server);
      const python = (...args: string[]) =>
        run(VENV_PYTHON, ["run_program.py", ...args], { cwd: p.project, env: p.env });
      try {
        expect(printedOutputs(await python("up"))).toMatchObject({ status: "running" });
        const live = await liveResources(server);
        expect(live.workloads.map((w) => [w.name, w.state?.status])).toEqual([["web", "running"]]);
        expect(live.volumes.map((v) => v.name)).toEqual(["data"]);
        expect(live.ssh_keys.map((k) => k.name)).toEqual(["deploy"]);
        await python("preview");
        await python("destroy");
        expect(await liveResources(server)).toMatchObject({ workloads: [], volumes: [], ssh_keys: [] });
      } finally {
        p.cleanup();
        rmSync(source, { recursive: true, force: true });
      }
    },
  );

  it("spells resourceName as the reference pages say: resource_name_ in keyword arguments, resource_name in Args", async () => {
    const script = [
      "import inspect, json, pulumi_cws as cws",
      "out = {}",
      "for n in ('Workload', 'Volume', 'Sandbox'):",
      "    cls = getattr(cws, n)",
      "    src = inspect.getsource(cls._internal_init)",
      "    args = inspect.signature(getattr(cws, n + 'Args').__init__).parameters",
      "    out[n] = ['resource_name_' in src, 'resource_name' in args]",
      "print(json.dumps(out))",
    ].join("\n");
    const printed = await run(VENV_PYTHON, ["-c", script], { cwd: REPO_ROOT, env: process.env });
    expect(JSON.parse(printed.trim().split("\n").pop()!)).toEqual({
      Workload: [true, true],
      Volume: [true, true],
      Sandbox: [true, true],
    });
    const page = readFileSync(join(REPO_ROOT, "docs", "resources", "volume.md"), "utf8");
    expect(page).toContain('resource_name_="gpu-rental-small"');
  });
});
