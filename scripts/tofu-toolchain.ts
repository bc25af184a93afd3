/**
 * Where the OpenTofu CLI used by this project lives, and how to get it.
 *
 * OpenTofu is built from the Go module proxy (its go.mod has replace directives, so `go install`
 * refuses it: the module is downloaded and `./cmd/tofu` built inside it) and cached outside the
 * clone, keyed by version, beside the Pulumi CLI (~/.cache/pulumi-cws/tofu-v<version>/bin/tofu).
 * `CWS_TOFU` names a tofu (or terraform) binary to use instead.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { goBuild, pulumiRoot } from "./pulumi-toolchain.ts";

export const TOFU_VERSION = "1.10.6";
const TOFU_MODULE = "github.com/opentofu/opentofu";

/** `<cache>/tofu-v<version>/bin/tofu`, in the same cache as the Pulumi CLI. */
export function tofuPath(version = TOFU_VERSION): string {
  if (process.env.CWS_TOFU) return process.env.CWS_TOFU;
  return join(dirname(pulumiRoot()), `tofu-v${version}`, "bin", "tofu");
}

/** The cached tofu, built from the Go module proxy first when missing (about 5 minutes on 2 cores). */
export async function ensureTofu(
  log: (s: string) => void = (s) => console.error(`[tofu] ${s}`),
): Promise<string> {
  const out = tofuPath();
  if (existsSync(out)) return out;
  log(`OpenTofu v${TOFU_VERSION} is not cached at ${out}: building it from the Go module proxy`);
  const env = { ...process.env, GOFLAGS: "-mod=mod" };
  const info = JSON.parse(
    execFileSync("go", ["mod", "download", "-json", `${TOFU_MODULE}@v${TOFU_VERSION}`], {
      cwd: tmpdir(),
      env,
      encoding: "utf8",
    }),
  ) as { Dir?: string; Error?: string };
  if (!info.Dir)
    throw new Error(`go mod download ${TOFU_MODULE}@v${TOFU_VERSION} failed: ${info.Error ?? "no Dir"}`);
  // dev=no: a release build (`tofu version` says v1.10.6, not v1.10.6-dev).
  const ldflags = "-s -w -X github.com/opentofu/opentofu/version.dev=no";
  await goBuild(`OpenTofu v${TOFU_VERSION}`, "./cmd/tofu", info.Dir, ldflags, out, log);
  return out;
}
