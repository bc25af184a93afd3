/**
 * The release executable's main script (scripts/release/: one self-contained program per
 * platform, a Node single executable application). Like busybox, it is what the name it is started
 * under says:
 * - `pulumi-resource-cws...`: the native Pulumi plugin (provider/native/main.ts);
 * - `terraform-provider-cws...` (the zip holds `terraform-provider-cws_v<version>`): the provider
 *   for OpenTofu and Terraform (provider/opentofu/main.ts);
 * - `node`: the Node that runs the sandbox agent of the reference server (its sandboxes start
 *   the host's Node, `process.execPath`, as `/.cws/node <agent>`; inside the executable that is the
 *   executable itself): `node [--flag ...] script [args]` runs the script;
 * - anything else (`cws`, `cws.exe`): the `cws` command (cli/cws.ts).
 * So one build per platform serves every archive of the release.
 *
 * This script is small: the code of each role is among the executable's files
 * (executable-files.ts), which it loads from the folder they are written to, with Node's compile
 * cache on, as the npm package's plugins load their bundles: a start after the first reads the
 * role's compiled code from the cache instead of compiling it.
 */
import { createRequire } from "node:module";
import { basename, join, resolve } from "node:path";
import { enableCompileCache } from "../provider/frontend/compile-cache.ts";
import { filesRoot, ROLE_ENTRIES, type Role } from "./executable-files.ts";

/** What the executable is, by the name it was started under (its argv[0]). */
export function roleOf(argv0: string): Role {
  const name = basename(argv0.replaceAll("\\", "/")).replace(/\.exe$/i, "");
  if (name.startsWith("pulumi-resource-cws")) return "pulumi-plugin";
  if (name.startsWith("terraform-provider-cws")) return "tofu-provider";
  if (name === "node") return "node";
  return "cws";
}

/**
 * `node [--flag ...] script [args]`: the script (the sandbox agent, an ES module without top-level
 * await) loaded as Node would, with `process.argv` as Node gives it. Node's own flags
 * (`--max-old-space-size=128`) are not applied: the executable is not a Node command line.
 */
function runScript(args: string[]): void {
  const at = args.findIndex((a) => !a.startsWith("-"));
  if (at < 0) {
    process.stderr.write("node: this executable only runs a script: node [flags] script [args]\n");
    process.exit(2);
  }
  const script = resolve(args[at]!);
  process.argv = [process.execPath, script, ...args.slice(at + 1)];
  createRequire(script)(script);
}

/** Runs the executable as `role`, with the arguments after its name. */
export function start(role: Role, args: string[]): void {
  if (role === "node") return runScript(args);
  let entry: string;
  try {
    entry = join(filesRoot(), ...ROLE_ENTRIES[role].split("/"));
  } catch (e) {
    process.stderr.write(`${basename(process.argv0)}: ${(e as Error).message}\n`);
    process.exit(1);
  }
  enableCompileCache();
  // Inside the executable argv is [its path, the name it was started under, ...args], as the
  // roles' code expects it: arguments from argv[2] on.
  createRequire(entry)(entry);
}

const sea = process.getBuiltinModule("node:sea") as { isSea(): boolean } | undefined;
if (sea?.isSea()) start(roleOf(process.argv0), process.argv.slice(2));
