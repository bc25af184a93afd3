/**
 * What Python, Go and YAML programs need, built offline from the package registries:
 *
 * - `tools/gen-sdk` (built from the Go module proxy, cached in ~/.cache/pulumi-cws keyed by
 *   the Pulumi version and a hash of its sources) writes sdk/python and sdk/go from schema.json;
 * - `.venv/`: the project's Python virtual environment with `pulumi` from PyPI (the version of
 *   `@pulumi/pulumi` in package.json) and the generated Python SDK;
 * - the Go modules of the Go programs (examples/go-vm) from the Go module proxy.
 *
 * `node scripts/languages.ts [gen|python|go|all]` (npm run sdk:gen, npm run languages:setup).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "./repo-root.ts";
import { pulumiRoot, pulumiVersion } from "./pulumi-toolchain.ts";

const GEN_SDK_DIR = join(REPO_ROOT, "tools", "gen-sdk");
export const SCHEMA = join(REPO_ROOT, "schema.json");
export const SDK_DIR = join(REPO_ROOT, "sdk");
export const VENV = join(REPO_ROOT, ".venv");
export const VENV_PYTHON = join(VENV, "bin", "python");
/** Go programs whose modules setup downloads. */
export const GO_PROGRAMS = [join(REPO_ROOT, "examples", "go-vm")];

/**
 * The Pulumi CLI's build settings (scripts/pulumi-toolchain.ts). Go programs built with the same
 * ones reuse the packages the CLI build compiled into Go's build cache (most of the Pulumi SDK),
 * instead of compiling them again.
 */
export const GO_BUILD_ENV = { CGO_ENABLED: "0", GOFLAGS: "-tags=osusergo,grpcnotrace" };

type Log = (s: string) => void;
const defaultLog: Log = (s) => console.error(`[languages] ${s}`);

/** Runs a command; its output goes to a buffer that is printed only when it fails. */
export function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {},
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO_ROOT, env: opts.env ?? process.env });
    let out = "";
    const keep = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-20_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (e) => reject(new Error(`could not start ${cmd}: ${e.message}`)));
    child.on("exit", (code) => {
      if (code === 0) return resolvePromise(out);
      if (!opts.quiet) process.stderr.write(out);
      reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}`));
    });
  });
}

function seconds(since: number): string {
  return `${Math.round((Date.now() - since) / 1000)}s`;
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
  const gomod = readFileSync(join(GEN_SDK_DIR, "go.mod"), "utf8");
  if (!gomod.includes(`github.com/pulumi/pulumi/pkg/v3 v${version}\n`)) {
    throw new Error(
      `tools/gen-sdk/go.mod must require github.com/pulumi/pulumi/pkg/v3 v${version} (the version of @pulumi/pulumi in package.json); see tools/gen-sdk/README.md`,
    );
  }
  const dir = join(dirname(pulumiRoot(version)), genSdkKey());
  const binary = join(dir, "gen-sdk");
  if (existsSync(binary)) {
    log(`using cached gen-sdk at ${binary}`);
    return binary;
  }
  mkdirSync(dir, { recursive: true });
  log(
    `building tools/gen-sdk (Pulumi's SDK generators v${version}) from the Go module proxy; the first build takes several minutes`,
  );
  const started = Date.now();
  const tmp = `${binary}.tmp-${process.pid}`;
  const ticker = setInterval(() => log(`still building gen-sdk (${seconds(started)})`), 30_000);
  try {
    await run("go", ["build", "-ldflags", "-s -w", "-o", tmp, "."], {
      cwd: GEN_SDK_DIR,
      env: { ...process.env, ...GO_BUILD_ENV, GOFLAGS: `-mod=mod ${GO_BUILD_ENV.GOFLAGS}` },
    });
  } finally {
    clearInterval(ticker);
  }
  renameSync(tmp, binary);
  log(`built gen-sdk in ${seconds(started)}`);
  return binary;
}

/** Writes sdk/python and sdk/go from schema.json. */
export async function generateSdks(log: Log = defaultLog): Promise<void> {
  if (!existsSync(SCHEMA)) throw new Error(`${SCHEMA} is missing: the SDKs are generated from it`);
  const genSdk = await ensureGenSdk(log);
  const out = await run(genSdk, ["-schema", SCHEMA, "-out", SDK_DIR, "-lang", "python,go"]);
  for (const line of out.trim().split("\n")) log(line);
}

/** Creates .venv if needed, with `pulumi` at the CLI's version and the generated Python SDK. */
export async function ensurePythonEnv(log: Log = defaultLog): Promise<void> {
  const version = pulumiVersion();
  const started = Date.now();
  if (!existsSync(VENV_PYTHON)) {
    log(`creating the Python virtual environment ${VENV}`);
    try {
      await run("python3", ["-m", "venv", VENV]);
    } catch (e) {
      throw new Error(
        `${(e as Error).message}: python3 -m venv needs Debian's python3-venv (scripts/setup.sh installs it)`,
      );
    }
  }
  if (!existsSync(join(SDK_DIR, "python", "pyproject.toml"))) {
    throw new Error("sdk/python is not generated: run `npm run sdk:gen` first");
  }
  // pip always rebuilds a local directory, so the SDK just generated is what gets installed;
  // `pulumi` and the SDK's other requirements come from PyPI (pip's cache keeps them).
  log(`installing pulumi==${version} and the generated Python SDK (sdk/python) into .venv`);
  await run(VENV_PYTHON, [
    "-m",
    "pip",
    "--disable-pip-version-check",
    "--no-input",
    "install",
    "--quiet",
    `pulumi==${version}`,
    join(SDK_DIR, "python"),
  ]);
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

async function main(step: string): Promise<void> {
  const steps: Record<string, () => Promise<void>> = {
    gen: () => generateSdks(),
    python: () => ensurePythonEnv(),
    go: () => ensureGoModules(),
    all: async () => {
      await generateSdks();
      await ensurePythonEnv();
      await ensureGoModules();
    },
  };
  await runStep(steps, step);
}

/** Runs the step of `steps` named `step`, or says which steps there are. */
export async function runStep(steps: Record<string, () => Promise<unknown>>, step: string): Promise<void> {
  const fn = steps[step];
  if (!fn) throw new Error(`unknown step '${step}' (${Object.keys(steps).join(", ")})`);
  await fn();
}

/** A script's entry point: `main(argv[2] ?? "all")`, a failure printed as one line and exit code 1. */
export async function runMain(main: (step: string) => Promise<void>): Promise<void> {
  try {
    await main(process.argv[2] ?? "all");
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runMain(main);
