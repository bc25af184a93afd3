/**
 * Where the OpenTofu CLI used by this project lives, and how to get it.
 *
 * OpenTofu is built from the Go module proxy (its go.mod has replace directives, so `go install`
 * refuses it: the module is downloaded and `./cmd/tofu` built inside it) and cached outside the
 * clone, keyed by version, beside the Pulumi CLI (~/.cache/pulumi-cws/tofu-v<version>/bin/tofu).
 * `CWS_TOFU` names a tofu (or terraform) binary to use instead.
 */
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../run.ts";
import { ensureCachedBuild, moduleToolchainEnv, toolchainCache, type GoTool } from "./go-build.ts";
import { logTo, type Log } from "./log.ts";

export const TOFU_VERSION = "1.12.6";
/**
 * The oldest OpenTofu the tests run: a release before write-only attributes and resource
 * identity, to show what users of such a release get (a clear error, not a crash).
 */
export const OLDEST_TOFU_VERSION = "1.10.6";
/**
 * The next OpenTofu, run by `npm run test:next` only (built there, never by setup or `npm test`):
 * what changes for users before they meet it. It asks for Go 1.27 (fetched from the proxy).
 */
export const NEXT_TOFU_VERSION = "1.13.0-beta1";
const TOFU_MODULE = "github.com/opentofu/opentofu";

/** `<cache>/tofu-v<version>/bin/tofu`, in the same cache as the Pulumi CLI. */
export function tofuPath(version = TOFU_VERSION): string {
  if (process.env.CWS_TOFU) return process.env.CWS_TOFU;
  return join(toolchainCache(), `tofu-v${version}`, "bin", "tofu");
}

/** The OpenTofu module downloaded by Go into its module cache; resolves to its directory. */
async function downloadModule(version: string): Promise<string> {
  const module = `${TOFU_MODULE}@v${version}`;
  const r = await runProcess("go", ["mod", "download", "-json", module], {
    cwd: tmpdir(),
    env: { ...process.env, GOFLAGS: "-mod=mod", ...(await moduleToolchainEnv(module)) },
    allowFailure: true,
  });
  let info: { Dir?: string; Error?: string } = {};
  try {
    info = JSON.parse(r.stdout) as typeof info;
  } catch {
    // No JSON: what went wrong is in the output.
  }
  if (!info.Dir) throw new Error(`go mod download ${module} failed: ${info.Error ?? r.output.trim()}`);
  return info.Dir;
}

/**
 * The Windows (amd64) tofu.exe of `version`, for the Windows check under Wine
 * (test/e2e/windows/): `<cache>/tofu-v<version>-windows-amd64/bin/tofu.exe`.
 */
export function windowsTofuPath(version = TOFU_VERSION): string {
  return join(toolchainCache(), `tofu-v${version}-windows-amd64`, "bin", "tofu.exe");
}

/** The cached Windows tofu.exe of `version` (GOOS=windows), cross-compiled first when missing. */
export async function ensureWindowsTofu(version = TOFU_VERSION, log: Log = logTo("tofu")): Promise<string> {
  return ensureCachedBuild(
    { ...tofuTool(version), what: "OpenTofu", goos: "windows" },
    windowsTofuPath(version),
    log,
  );
}

/** OpenTofu `version` as a build of the toolchain. */
function tofuTool(version: string): GoTool {
  return {
    what: "OpenTofu",
    version,
    pkg: "./cmd/tofu",
    moduleDir: () => downloadModule(version),
    // dev=no: a release build (`tofu version` says v1.12.6, not v1.12.6-dev).
    ldflags: "-s -w -X github.com/opentofu/opentofu/version.dev=no",
    versionInPath: true,
  };
}

/**
 * The cached tofu of `version`, built from the Go module proxy first when missing (a few minutes
 * on 2 cores).
 */
export async function ensureTofu(version = TOFU_VERSION, log: Log = logTo("tofu")): Promise<string> {
  const chosen = process.env.CWS_TOFU;
  if (chosen && existsSync(chosen)) return chosen;
  return ensureCachedBuild(tofuTool(version), tofuPath(version), log);
}

/**
 * The registry hosts a source address without one (`cws/cws`) means: OpenTofu's and Terraform's.
 * A mirror holds the provider under each, so that either tool finds it.
 */
export const REGISTRY_HOSTS = ["registry.opentofu.org", "registry.terraform.io"] as const;

/**
 * The environment of a tofu or terraform that installs the cws provider from the filesystem mirror
 * `mirror` (offline; every other provider as usual): its CLI config, written to `<root>/tofu.rc`
 * (both tools read `TF_CLI_CONFIG_FILE`), and the variables of an unattended run.
 */
export function mirrorEnv(root: string, mirror: string): NodeJS.ProcessEnv {
  const cliConfig = join(root, "tofu.rc");
  const patterns = REGISTRY_HOSTS.map((h) => `"${h}/cws/*"`).join(", ");
  writeFileSync(
    cliConfig,
    `provider_installation {\n  filesystem_mirror {\n    path    = "${mirror}"\n    include = [${patterns}]\n  }\n  direct {\n    exclude = [${patterns}]\n  }\n}\n`,
  );
  return { TF_CLI_CONFIG_FILE: cliConfig, TF_IN_AUTOMATION: "1", TF_INPUT: "0", CHECKPOINT_DISABLE: "1" };
}
