/**
 * Where the OpenTofu CLI used by this project lives, and how to get it.
 *
 * OpenTofu is built from the Go module proxy (its go.mod has replace directives, so `go install`
 * refuses it: the module is downloaded and `./cmd/tofu` built inside it) and cached outside the
 * clone, keyed by version, beside the Pulumi CLI (~/.cache/pulumi-cws/tofu-v<version>/bin/tofu).
 * `CWS_TOFU` names a tofu (or terraform) binary to use instead.
 */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../run.ts";
import { ensureCachedBuild, toolchainCache } from "./go-build.ts";
import { logTo, type Log } from "./log.ts";

export const TOFU_VERSION = "1.12.6";
const TOFU_MODULE = "github.com/opentofu/opentofu";

/** `<cache>/tofu-v<version>/bin/tofu`, in the same cache as the Pulumi CLI. */
export function tofuPath(version = TOFU_VERSION): string {
  if (process.env.CWS_TOFU) return process.env.CWS_TOFU;
  return join(toolchainCache(), `tofu-v${version}`, "bin", "tofu");
}

/** The OpenTofu module downloaded by Go into its module cache; resolves to its directory. */
async function downloadModule(): Promise<string> {
  const module = `${TOFU_MODULE}@v${TOFU_VERSION}`;
  const r = await runProcess("go", ["mod", "download", "-json", module], {
    cwd: tmpdir(),
    env: { ...process.env, GOFLAGS: "-mod=mod" },
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

/** The cached tofu, built from the Go module proxy first when missing (about 5 minutes on 2 cores). */
export async function ensureTofu(log: Log = logTo("tofu")): Promise<string> {
  const chosen = process.env.CWS_TOFU;
  if (chosen && existsSync(chosen)) return chosen;
  return ensureCachedBuild(
    {
      what: "OpenTofu",
      version: TOFU_VERSION,
      pkg: "./cmd/tofu",
      moduleDir: downloadModule,
      // dev=no: a release build (`tofu version` says v1.12.6, not v1.12.6-dev).
      ldflags: "-s -w -X github.com/opentofu/opentofu/version.dev=no",
      versionInPath: true,
    },
    tofuPath(),
    log,
  );
}
