/**
 * What Python, Go and YAML programs need, built offline from the package registries:
 *
 * - `tools/gen-sdk` (built from the Go module proxy, cached in ~/.cache/pulumi-cws keyed by
 *   the Pulumi version and a hash of its sources) writes sdk/python and sdk/go from schema.json;
 * - `.venv/`: the project's Python virtual environment with `pulumi` from PyPI (the version of
 *   `@pulumi/pulumi` in package.json), the generated Python SDK, and moto's S3 server (an
 *   S3-compatible store the team-state tests keep Pulumi's DIY backend in:
 *   test/helpers/team-backends.ts);
 * - the Go modules of the Go programs (examples/go-vm) from the Go module proxy.
 *
 * `npm run sdk:gen` and `npm run languages:setup` run these steps (scripts/toolchain/cli.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { run } from "../run.ts";
import { ensureCachedBuild, GO_BUILD_ENV, requiredVersion, toolchainCache } from "./go-build.ts";
import { logTo, seconds, type Log } from "./log.ts";
import { PULUMI_PKG_MODULE, pulumiVersion } from "./pulumi.ts";

const GEN_SDK_DIR = join(REPO_ROOT, "tools", "gen-sdk");
export const SCHEMA = join(REPO_ROOT, "schema.json");
export const SDK_DIR = join(REPO_ROOT, "sdk");
export const VENV = join(REPO_ROOT, ".venv");
export const VENV_PYTHON = join(VENV, "bin", "python");
/** Go programs whose modules setup downloads. */
export const GO_PROGRAMS = [join(REPO_ROOT, "examples", "go-vm")];

const defaultLog = logTo("languages");

/** The provider's version: schema.json's, which every SDK and its package carry. */
export function schemaVersion(): string {
  return String((JSON.parse(readFileSync(SCHEMA, "utf8")) as { version: string }).version);
}

/** The cache key of gen-sdk: the Pulumi version and the hash of the wrapper module's files. */
function genSdkKey(): string {
  const hash = createHash("sha256");
  for (const name of readdirSync(GEN_SDK_DIR).sort()) {
    if (!/\.go$|^go\.(mod|sum)$/.test(name)) continue;
    hash
      .update(name)
      .update("\0")
      .update(readFileSync(join(GEN_SDK_DIR, name)))
      .update("\0");
  }
  return `gen-sdk-v${pulumiVersion()}-${hash.digest("hex").slice(0, 12)}`;
}

/** Builds tools/gen-sdk once (cached) and returns the binary's path. */
export async function ensureGenSdk(log: Log = defaultLog): Promise<string> {
  const version = pulumiVersion();
  if (requiredVersion(GEN_SDK_DIR, PULUMI_PKG_MODULE) !== version) {
    throw new Error(
      `tools/gen-sdk/go.mod must require ${PULUMI_PKG_MODULE} v${version} (the version of @pulumi/pulumi in package.json); see tools/gen-sdk/README.md`,
    );
  }
  return ensureCachedBuild(
    { what: "gen-sdk", version, pkg: ".", moduleDir: GEN_SDK_DIR, versionInPath: true },
    join(toolchainCache(), genSdkKey(), "gen-sdk"),
    log,
  );
}

/** Writes sdk/python and sdk/go from schema.json. */
export async function generateSdks(log: Log = defaultLog): Promise<void> {
  if (!existsSync(SCHEMA)) throw new Error(`${SCHEMA} is missing: the SDKs are generated from it`);
  const genSdk = await ensureGenSdk(log);
  const out = await run(genSdk, ["-schema", SCHEMA, "-out", SDK_DIR, "-lang", "python,go"]);
  for (const line of out.trim().split("\n")) log(line);
}

/**
 * The S3-compatible server of the team-state tests (test/helpers/team-backends.ts), pinned: moto
 * with its S3 backend and the two packages its server mode runs on. `moto[server]` would bring
 * every AWS service's dependencies: 317 MB and two minutes cold, against 140 MB and 20 s.
 */
export const MOTO = ["moto[s3]==5.2.5", "flask==3.1.3", "flask-cors==6.0.5"];
/** Its command in the virtual environment. */
export const MOTO_SERVER = join(VENV, "bin", "moto_server");
/**
 * Schemathesis, pinned: it fuzzes the reference server against its own OpenAPI document
 * (test/server/schemathesis.test.ts, bench/schemathesis.ts).
 */
export const SCHEMATHESIS = ["schemathesis==4.32.5"];
export const SCHEMATHESIS_BIN = join(VENV, "bin", "schemathesis");

/** pip of the project's virtual environment, never asking and never checking for a newer pip. */
export function pip(args: string[]): Promise<string> {
  return run(VENV_PYTHON, ["-m", "pip", "--disable-pip-version-check", "--no-input", ...args]);
}

/**
 * The `pulumi` Python package of the programs: PyPI's newest release, 3.272.0 (PyPI has no
 * 3.276.0, the CLI's version; 3.273 only as alphas). The CLI runs programs of an older SDK.
 */
export const PYTHON_PULUMI_VERSION = "3.272.0";

/** Creates .venv if needed, with `pulumi` (PYTHON_PULUMI_VERSION) and the generated Python SDK. */
export async function ensurePythonEnv(log: Log = defaultLog): Promise<void> {
  const version = PYTHON_PULUMI_VERSION;
  const started = Date.now();
  if (!existsSync(VENV_PYTHON)) {
    log(`creating the Python virtual environment ${VENV}`);
    try {
      await run("python3", ["-m", "venv", VENV]);
    } catch (e) {
      throw new Error(
        `${(e as Error).message}: python3 -m venv needs Debian's python3-venv (scripts/setup-tests.sh installs it)`,
      );
    }
  }
  if (!existsSync(join(SDK_DIR, "python", "pyproject.toml"))) {
    throw new Error("sdk/python is not generated: run `npm run sdk:gen` first");
  }
  // pip always rebuilds a local directory, so the SDK just generated is what gets installed;
  // `pulumi` and the SDK's other requirements come from PyPI (pip's cache keeps them).
  log(
    `installing pulumi==${version}, the generated Python SDK (sdk/python), ${[...MOTO, ...SCHEMATHESIS].join(", ")} into .venv`,
  );
  await pip(["install", "--quiet", `pulumi==${version}`, join(SDK_DIR, "python"), ...MOTO, ...SCHEMATHESIS]);
  log(`Python environment ready in ${seconds(started)}`);
}

/** Downloads and compiles what the Go programs need (Go's module and build caches keep them). */
export async function ensureGoModules(log: Log = defaultLog): Promise<void> {
  if (!existsSync(join(SDK_DIR, "go", "go.mod"))) {
    throw new Error("sdk/go is not generated: run `npm run sdk:gen` first");
  }
  for (const dir of GO_PROGRAMS) {
    const started = Date.now();
    log(`downloading the Go modules of ${dir.slice(REPO_ROOT.length + 1)}`);
    await run("go", ["mod", "download"], { cwd: dir });
    // Compiling once fills Go's build cache, so the first `go run` is quick.
    await run("go", ["build", "-o", "/dev/null", "."], {
      cwd: dir,
      env: { ...process.env, ...GO_BUILD_ENV },
    });
    log(`Go modules downloaded and compiled in ${seconds(started)}`);
  }
}
