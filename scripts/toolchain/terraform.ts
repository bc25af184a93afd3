/**
 * Where the HashiCorp Terraform CLI used by this project lives, and how to get it.
 *
 * Terraform is built from the Go module proxy and cached outside the clone, keyed by version,
 * beside OpenTofu and the Pulumi CLI (~/.cache/pulumi-cws/terraform-v<version>/bin/terraform).
 * `CWS_TERRAFORM` names a terraform binary to use instead.
 *
 * The release's module does not build as published: its go.mod replaces ten nested modules with
 * folders (`./internal/backend/remote-state/<name>`, `./internal/legacy`) that its module zip
 * leaves out. The source edit that makes it build, and nothing more:
 *   1. the module is copied out of Go's (read-only) module cache into a writable build folder;
 *   2. nine of the nested modules are downloaded from the Go module proxy, at the version the
 *      proxy lists as their latest (NESTED_VERSION), and copied into those folders, so the
 *      replace lines find them;
 *   3. the tenth, the `oci` state backend, is not served by the proxy: its import and its entry
 *      in `internal/backend/init/init.go` and its go.mod lines are removed (that backend is
 *      missing from this build; nothing here uses it);
 * then `go build .` with CGO_ENABLED=0 and `version.dev=no`, so `terraform version` prints
 * `Terraform v1.13.3` like a release.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runProcess } from "../run.ts";
import { ensureCachedBuild, toolchainCache } from "./go-build.ts";
import { logTo, type Log } from "./log.ts";

/** The newest Terraform the Go module proxy lists. */
export const TERRAFORM_VERSION = "1.13.3";
const TERRAFORM_MODULE = "github.com/hashicorp/terraform";

/**
 * The version of the nested modules: what the proxy resolves `@latest` of each of them to (one
 * commit for all nine). Pinned, so a later publication cannot change what this build compiles.
 */
export const NESTED_VERSION = "v0.0.0-20250409131005-35645b8fca68";

/** The nested modules the proxy serves, as folders of the Terraform module. */
const NESTED_FOLDERS = [
  ...["azure", "consul", "cos", "gcs", "kubernetes", "oss", "pg", "s3"].map(
    (b) => `internal/backend/remote-state/${b}`,
  ),
  "internal/legacy",
];

/** The nested module the proxy does not serve: left out of the build. */
const MISSING_FOLDER = "internal/backend/remote-state/oci";

/** `<cache>/terraform-v<version>/bin/terraform`, in the same cache as OpenTofu and the Pulumi CLI. */
export function terraformPath(): string {
  if (process.env.CWS_TERRAFORM) return process.env.CWS_TERRAFORM;
  return join(toolchainCache(), `terraform-v${TERRAFORM_VERSION}`, "bin", "terraform");
}

/** `module@version` downloaded by Go into its module cache; resolves to each one's directory. */
async function downloadModules(modules: string[]): Promise<Map<string, string>> {
  const r = await runProcess("go", ["mod", "download", "-json", ...modules], {
    cwd: tmpdir(),
    env: { ...process.env, GOFLAGS: "-mod=mod" },
    allowFailure: true,
  });
  // `go mod download -json` prints one JSON object per module, one after the other.
  const dirs = new Map<string, string>();
  const errors: string[] = [];
  for (const text of r.stdout.split(/\n(?=\{)/)) {
    if (!text.trim()) continue;
    const info = JSON.parse(text) as { Path: string; Version: string; Dir?: string; Error?: string };
    if (info.Dir) dirs.set(`${info.Path}@${info.Version}`, info.Dir);
    else errors.push(`${info.Path}@${info.Version}: ${info.Error ?? "no directory"}`);
  }
  const missing = modules.filter((m) => !dirs.has(m));
  if (missing.length > 0)
    throw new Error(
      `go mod download failed for ${missing.join(", ")}: ${errors.join("; ") || r.output.trim()}`,
    );
  return dirs;
}

/** A copy of `from` at `to` that this process may write (the module cache's files are read-only). */
function writableCopy(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(to, { recursive: true, encoding: "utf8" })) {
    const path = join(to, entry);
    chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  }
}

/** `file` without the lines that mention `needle`; fails when there is none (the source moved on). */
function dropLines(file: string, needle: string): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const kept = lines.filter((l) => !l.includes(needle));
  if (kept.length === lines.length)
    throw new Error(`${file} no longer mentions ${needle}: review the source edit`);
  writeFileSync(file, kept.join("\n"));
}

/**
 * The Terraform module of this release with the source edit applied, in `dir` (made afresh);
 * resolves to `dir`.
 */
export async function prepareTerraformSource(dir: string, log: Log): Promise<string> {
  const main = `${TERRAFORM_MODULE}@v${TERRAFORM_VERSION}`;
  const nested = NESTED_FOLDERS.map((f) => `${TERRAFORM_MODULE}/${f}@${NESTED_VERSION}`);
  log(`downloading ${main} and its ${nested.length} nested modules from the Go module proxy...`);
  const dirs = await downloadModules([main, ...nested]);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  writableCopy(dirs.get(main)!, dir);
  for (const [i, folder] of NESTED_FOLDERS.entries()) {
    const target = join(dir, folder);
    if (existsSync(target)) throw new Error(`${main} now has ${folder}: review the source edit`);
    writableCopy(dirs.get(nested[i]!)!, target);
  }
  log(`left out the ${MISSING_FOLDER} state backend (not on the Go module proxy)`);
  dropLines(join(dir, "internal/backend/init/init.go"), "backendOCI");
  dropLines(join(dir, "go.mod"), `${TERRAFORM_MODULE}/${MISSING_FOLDER}`);
  return dir;
}

/**
 * The cached terraform, built from the Go module proxy first when missing (about 6 minutes on 2
 * cores). `CWS_TERRAFORM`, when it names an existing file, is used as it is.
 */
export async function ensureTerraform(log: Log = logTo("terraform")): Promise<string> {
  const chosen = process.env.CWS_TERRAFORM;
  if (chosen && existsSync(chosen)) return chosen;
  const binary = terraformPath();
  const source = join(toolchainCache(), `terraform-v${TERRAFORM_VERSION}`, "src");
  await ensureCachedBuild(
    {
      what: "Terraform",
      version: TERRAFORM_VERSION,
      pkg: ".",
      moduleDir: () => prepareTerraformSource(source, log),
      // dev=no: a release build (`terraform version` says v1.13.3, not v1.13.3-dev).
      ldflags: `-s -w -X ${TERRAFORM_MODULE}/version.dev=no`,
      versionInPath: true,
    },
    binary,
    log,
  );
  // The edited source is only needed by the build (the compiled packages stay in Go's build cache).
  rmSync(source, { recursive: true, force: true });
  return binary;
}
