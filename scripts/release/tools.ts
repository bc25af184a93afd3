/**
 * The release's tools beyond npm's, from the registries and cached outside the clone like the
 * platforms' Node builds (platforms.ts):
 * - `rcodesign` (the `apple-codesign` crate, RCODESIGN_VERSION, from crates.io by `cargo install
 *   --locked`): signs the macOS executables ad hoc on Linux, which macOS asks of every arm64
 *   program (sea.ts). Built once, without its default feature (notarization), into
 *   `~/.cache/pulumi-cws/rcodesign-<version>/bin/rcodesign`: about 7.6 minutes of CPU, some 4
 *   minutes on two idle cores.
 * - every platform's Node build at RELEASE_NODE_VERSION (platforms.ts).
 *
 * `node scripts/release/tools.ts` fetches and builds them all (scripts/setup-tests.sh runs it).
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { onPath, runProcess } from "../run.ts";
import { toolchainCache } from "../toolchain/go-build.ts";
import { logTo, seconds, type Log } from "../toolchain/log.ts";
import { hostPlatform, nodeBinary, PLATFORMS } from "./platforms.ts";

export const RCODESIGN_VERSION = "0.29.0";

/** The cached `rcodesign`, built first when it is missing. */
export async function rcodesign(log: Log): Promise<string> {
  const root = join(toolchainCache(), `rcodesign-${RCODESIGN_VERSION}`);
  const bin = join(root, "bin", "rcodesign");
  if (existsSync(bin)) return bin;
  const cargo = onPath("cargo") ?? join(process.env.HOME ?? "/root", ".cargo", "bin", "cargo");
  if (!existsSync(cargo))
    throw new Error("cargo is not installed: rcodesign is built from crates.io with it");
  const started = Date.now();
  log(`building rcodesign ${RCODESIGN_VERSION} from crates.io (apple-codesign; a few minutes, once)`);
  mkdirSync(toolchainCache(), { recursive: true });
  const scratch = mkdtempSync(`${root}.tmp-`);
  try {
    await runProcess(cargo, [
      "install",
      "apple-codesign",
      "--version",
      RCODESIGN_VERSION,
      "--locked",
      // Without notarization's AWS and App Store Connect clients: 7.6 min of CPU instead of 13.
      "--no-default-features",
      "--bin",
      "rcodesign",
      "--root",
      join(scratch, "install"),
      "--target-dir",
      join(scratch, "target"),
    ]);
    rmSync(root, { recursive: true, force: true });
    renameSync(join(scratch, "install"), root);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  log(`rcodesign ${RCODESIGN_VERSION} built (${seconds(started)})`);
  return bin;
}

/** Every tool the release uses, fetched or built into the cache. */
export async function releaseTools(log: Log): Promise<void> {
  const host = hostPlatform();
  if (host) await nodeBinary(host.node, log);
  for (const p of PLATFORMS) await nodeBinary(p.node, log);
  await rcodesign(log);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await releaseTools(logTo("release-tools"));
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    process.exit(1);
  }
}
