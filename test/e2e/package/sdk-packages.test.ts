/**
 * The SDKs as users install them from their package managers, outside this checkout: the
 * Python wheel in a fresh virtual environment, the Go module through a module proxy directory
 * (GOPROXY=file://). Each program deploys against the reference server and is destroyed; the
 * plugin is found on PATH, as docs/packages.md says. (The npm tarball: test/e2e/package/npm-package.test.ts;
 * the Java jar: test/e2e/languages/java.test.ts.)
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GO_BUILD_ENV } from "../../../scripts/toolchain/go-build.ts";
import { GO_MODULE, packGoModule, packPythonWheel } from "../../../scripts/pack-sdks.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { PYTHON_PULUMI_VERSION } from "../../../scripts/toolchain/languages.ts";
import { pulumiVersion } from "../../../scripts/toolchain/pulumi.ts";
import { run } from "../../../scripts/run.ts";
import { filesContaining, printedOutputs, programDir } from "../../helpers/program-dir.ts";
import { useTestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";

const NOTHING = { workloads: [], ssh_keys: [] };

describe("SDK packages installed the way each language installs packages", () => {
  const server = useTestServer();
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "cws-packages-"));
  });
  afterAll(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it(
    "the Python wheel, pip-installed into a fresh virtual environment, runs a program: up, destroy",
    { timeout: 600_000 },
    async () => {
      const wheel = await packPythonWheel(join(out, "python"), () => {});
      expect(wheel).toMatch(/pulumi_cws-0\.1\.0-py3-none-any\.whl$/);
      const p = programDir("python-wheel", join(REPO_ROOT, "examples", "python-sandbox"), server);
      try {
        const venv = join(p.state, "venv");
        await run("python3", ["-m", "venv", venv], { cwd: p.project, env: p.env });
        const python = join(venv, "bin", "python");
        await run(
          python,
          [
            "-m",
            "pip",
            "--disable-pip-version-check",
            "install",
            "--quiet",
            `pulumi==${PYTHON_PULUMI_VERSION}`,
            wheel,
          ],
          { cwd: p.project, env: p.env },
        );
        // The package is the wheel's, not the checkout's.
        const where = await run(python, ["-c", "import pulumi_cws; print(pulumi_cws.__file__)"], {
          cwd: p.project,
          env: p.env,
        });
        expect(where.trim()).toContain(join(venv, "lib"));

        const up = await run(python, ["main.py", "up"], { cwd: p.project, env: p.env });
        expect(printedOutputs(up)).toMatchObject({ status: "running", template: "ubuntu-headless" });
        await run(python, ["main.py", "destroy"], { cwd: p.project, env: p.env });
        expect((await liveResources(server)).workloads).toEqual([]);
      } finally {
        p.cleanup();
      }
    },
  );

  it(
    `the Go module ${GO_MODULE}, fetched through GOPROXY=file://, builds a fresh program: up, destroy`,
    { timeout: 900_000 },
    async () => {
      const proxy = await packGoModule(join(out, "go"), () => {});
      const p = programDir("go-module", join(REPO_ROOT, "examples", "go-vm"), server);
      try {
        // A program of its own: the example's code importing the published module path.
        const dir = join(p.state, "program");
        mkdirSync(dir);
        const main = readFileSync(join(p.project, "main.go"), "utf8");
        expect(main).toContain('"pulumi-cws/sdk/go/cws"');
        writeFileSync(join(dir, "main.go"), main.replace('"pulumi-cws/sdk/go/cws"', `"${GO_MODULE}/cws"`));
        writeFileSync(
          join(dir, "go.mod"),
          `module example.com/cws-consumer\n\ngo 1.25.11\n\nrequire (\n\t${GO_MODULE} v0.1.0\n\tgithub.com/pulumi/pulumi/sdk/v3 v${pulumiVersion()}\n)\n`,
        );
        // Hashes of the Pulumi SDK's modules, as any project pinning the same SDK has them.
        copyFileSync(join(p.project, "go.sum"), join(dir, "go.sum"));
        const env = {
          ...p.env,
          ...GO_BUILD_ENV,
          GOPROXY: `file://${proxy},${process.env.GOPROXY ?? "https://proxy.golang.org,direct"}`,
          // A module of one's own proxy has no entry in the public checksum database.
          GONOSUMDB: GO_MODULE,
          GOFLAGS: `-mod=mod ${GO_BUILD_ENV.GOFLAGS}`,
        };
        await run("go", ["mod", "tidy"], { cwd: dir, env });
        expect(readFileSync(join(dir, "go.sum"), "utf8")).toContain(`${GO_MODULE} v0.1.0 h1:`);
        const binary = join(dir, "consumer");
        await run("go", ["build", "-o", binary, "."], { cwd: dir, env });

        const vmEnv = { ...p.env, VM_PASSWORD: "go-module-pass-51aa" };
        const up = await run(binary, ["up"], { cwd: dir, env: vmEnv });
        expect(printedOutputs(up)).toMatchObject({ status: "running", vmConfig: "[secret]" });
        expect(filesContaining(p.state, "go-module-pass-51aa")).toEqual([]);
        await run(binary, ["destroy"], { cwd: dir, env: vmEnv });
        const after = await liveResources(server);
        expect({ workloads: after.workloads, ssh_keys: after.ssh_keys }).toEqual(NOTHING);
      } finally {
        p.cleanup();
      }
    },
  );
});
