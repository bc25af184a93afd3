/**
 * The release's executables of this machine's platform as users unpack them, for the benches:
 * `pulumi-resource-cws` from the Pulumi tar.gz and `terraform-provider-cws_v<version>` from the
 * OpenTofu/Terraform zip, in a temporary folder removed when the process exits. The release is
 * `dir` when given (`npm run release` output), else this checkout's, built for this platform or
 * taken from the cache when its inputs are unchanged (scripts/release/cached.ts).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { packageVersion } from "../scripts/build.ts";
import { cachedRelease } from "../scripts/release/cached.ts";
import { hostPlatform } from "../scripts/release/platforms.ts";
import { cwsArchiveName, providerExecutableName, pulumiArchiveName } from "../scripts/release/release.ts";
import { zipName } from "../scripts/release/terraform-assets.ts";
import { run } from "../scripts/run.ts";

/** The one file of a zip the release wrote (deflated, no data descriptor: scripts/release/archive.ts). */
function unzipOne(zip: Buffer): Buffer {
  const size = zip.readUInt32LE(18);
  const start = 30 + zip.readUInt16LE(26) + zip.readUInt16LE(28);
  return inflateRawSync(zip.subarray(start, start + size));
}

export interface Released {
  /** `pulumi-resource-cws`, from the Pulumi tar.gz. */
  plugin: string;
  /** `terraform-provider-cws_v<version>`, from the zip. */
  provider: string;
  /** Each archive of this platform with its size in bytes. */
  sizes: [string, number][];
}

export async function releasedExecutables(dir?: string): Promise<Released> {
  const host = hostPlatform();
  if (!host) throw new Error(`no release platform for ${process.platform}-${process.arch}`);
  const release = dir ?? (await cachedRelease([host], (line) => console.error(`[release] ${line}`)));
  const version = packageVersion();
  const out = mkdtempSync(join(tmpdir(), "cws-bench-release-"));
  process.once("exit", () => rmSync(out, { recursive: true, force: true }));
  await run("tar", ["-xzf", join(release, pulumiArchiveName(version, host)), "-C", out]);
  const provider = join(out, providerExecutableName(version, host));
  writeFileSync(provider, unzipOne(readFileSync(join(release, zipName(version, host.os, host.arch)))));
  chmodSync(provider, 0o755);
  const sizes = [
    pulumiArchiveName(version, host),
    zipName(version, host.os, host.arch),
    cwsArchiveName(version, host),
  ].map((f): [string, number] => [f, statSync(join(release, f)).size]);
  return { plugin: join(out, "pulumi-resource-cws"), provider, sizes };
}
