/**
 * Where the Pulumi CLI used by this project lives, and how to get it.
 *
 * The CLI is built from the Go module proxy at the version of `@pulumi/pulumi` in package.json,
 * through the wrapper module in tools/pulumi-cli, and cached outside the clone (keyed by version),
 * so a later clone on the same machine reuses it. The YAML language host is built beside it
 * through tools/pulumi-yaml.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { onPath } from "../run.ts";
import { ensureCachedBuild, goBuild, requiredVersion, toolchainCache } from "./go-build.ts";
import { logTo, type Log } from "./log.ts";

const WRAPPER_DIR = join(REPO_ROOT, "tools", "pulumi-cli");
const YAML_WRAPPER_DIR = join(REPO_ROOT, "tools", "pulumi-yaml");
const YAML_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
const CLI_PACKAGE = "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi";
/** The module of the CLI's sources, which the wrapper modules of tools/ require. */
export const PULUMI_PKG_MODULE = "github.com/pulumi/pulumi/pkg/v3";
const VERSION_VAR = "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version";

/** The exact `@pulumi/pulumi` version the project depends on (the CLI must match it). */
export function pulumiVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  const v = String(pkg.dependencies["@pulumi/pulumi"]);
  if (!/^\d+\.\d+\.\d+$/.test(v))
    throw new Error(`@pulumi/pulumi must be pinned to an exact version in package.json (got ${v})`);
  return v;
}

/** Root of the cached toolchain: `<root>/bin/pulumi` (the layout `PulumiCommand.get({ root })` expects). */
export function pulumiRoot(version = pulumiVersion()): string {
  return join(toolchainCache(), `pulumi-v${version}`);
}

function versionOf(binary: string): string | undefined {
  try {
    return execFileSync(binary, ["version"], { encoding: "utf8", timeout: 30_000 }).trim().replace(/^v/, "");
  } catch {
    return undefined;
  }
}

/**
 * The dynamic-provider plugin launcher shipped at the root of the `@pulumi/pulumi` npm package.
 * Beside the CLI it is found without any download.
 */
function installLauncher(binDir: string): void {
  const source = join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "pulumi-resource-pulumi-nodejs");
  if (!existsSync(source)) throw new Error(`${source} is missing: run npm ci first`);
  const target = join(binDir, "pulumi-resource-pulumi-nodejs");
  copyFileSync(source, target);
  chmodSync(target, 0o755);
}

/** Builds the CLI from the Go module proxy into `<root>/bin` (for `goos`, Go's name, when given). */
async function build(version: string, root: string, log: Log, goos?: string): Promise<void> {
  const pinned = requiredVersion(WRAPPER_DIR, PULUMI_PKG_MODULE);
  if (pinned !== version) {
    throw new Error(
      `tools/pulumi-cli/go.mod pins pulumi v${pinned} but package.json has @pulumi/pulumi ${version}; ` +
        `update the wrapper module (see tools/pulumi-cli/README.md)`,
    );
  }
  log(
    `building the Pulumi CLI v${version} from the Go module proxy (${process.env.GOPROXY ?? "default proxy"}); the first build takes several minutes`,
  );
  await goBuild(
    `pulumi v${version}${goos ? ` for ${goos}` : ""}`,
    CLI_PACKAGE,
    WRAPPER_DIR,
    `-s -w -X ${VERSION_VAR}=v${version}`,
    join(root, "bin", goos === "windows" ? "pulumi.exe" : "pulumi"),
    log,
    goos,
  );
}

/** The pulumi-yaml release tools/pulumi-yaml/go.mod pins. */
export function yamlHostVersion(): string {
  return requiredVersion(YAML_WRAPPER_DIR, "github.com/pulumi/pulumi-yaml");
}

/**
 * The YAML language host beside the CLI (`<root>/bin/pulumi-language-yaml`), built from the Go
 * module proxy through tools/pulumi-yaml when missing or of another release. `pulumi import` and
 * `pulumi up` of YAML projects need it.
 */
export async function ensureYamlHost(root: string, log: Log): Promise<string> {
  return ensureCachedBuild(
    {
      what: "pulumi-language-yaml",
      version: yamlHostVersion(),
      pkg: YAML_PACKAGE,
      moduleDir: YAML_WRAPPER_DIR,
    },
    join(root, "bin", "pulumi-language-yaml"),
    log,
  );
}

/**
 * The Windows (amd64) Pulumi CLI and YAML language host of the Windows check under Wine
 * (test/e2e/windows/), cross-compiled once into `<cache>/pulumi-v<version>-windows-amd64/bin/`
 * (`pulumi.exe`, `pulumi-language-yaml.exe`); returns that root.
 */
export async function ensureWindowsPulumi(log: Log = logTo("pulumi")): Promise<string> {
  const version = pulumiVersion();
  const root = `${pulumiRoot(version)}-windows-amd64`;
  if (!existsSync(join(root, "bin", "pulumi.exe"))) await build(version, root, log, "windows");
  await ensureCachedBuild(
    {
      what: "pulumi-language-yaml",
      version: yamlHostVersion(),
      pkg: YAML_PACKAGE,
      moduleDir: YAML_WRAPPER_DIR,
      goos: "windows",
    },
    join(root, "bin", "pulumi-language-yaml.exe"),
    log,
  );
  return root;
}

/**
 * Makes sure a Pulumi CLI of the right version is available and returns its root
 * (`<root>/bin/pulumi`, with the dynamic-provider launcher and the YAML language host beside it).
 * Order: the cache; a `pulumi` on PATH of the right version (linked into the cache); a build.
 */
export async function ensurePulumi(log: Log = logTo("pulumi")): Promise<string> {
  const version = pulumiVersion();
  const root = pulumiRoot(version);
  const binDir = join(root, "bin");
  const cached = join(binDir, "pulumi");
  if (existsSync(cached) && versionOf(cached) === version) {
    log(`using cached pulumi v${version} at ${cached}`);
  } else {
    const existing = onPath("pulumi");
    if (existing && versionOf(existing) === version) {
      log(`using pulumi v${version} found on PATH at ${existing}`);
      mkdirSync(binDir, { recursive: true });
      copyFileSync(existing, cached);
      chmodSync(cached, 0o755);
    } else {
      if (existing)
        log(`pulumi on PATH (${existing}) is v${versionOf(existing) ?? "?"}, not v${version}: building`);
      await build(version, root, log);
    }
  }
  installLauncher(binDir);
  const got = versionOf(cached);
  if (got !== version) throw new Error(`${cached} reports version '${got ?? ""}', expected ${version}`);
  await ensureYamlHost(root, log);
  return root;
}
