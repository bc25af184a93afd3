/**
 * A release directory (docs/releasing.md): per platform the Pulumi plugin's archive
 * (`pulumi-resource-cws-v<V>-<os>-<arch>.tar.gz`), the OpenTofu/Terraform provider's zip
 * (`terraform-provider-cws_<V>_<os>_<arch>.zip`) and the `cws` command's archive
 * (`cws_<V>_<os>_<arch>.tar.gz`), all three holding the one executable of that platform
 * (sea.ts) under their own name; the registries' `..._SHA256SUMS` (+ `.sig`) and
 * `..._manifest.json`; `network-mirror/` and `filesystem-mirror/` (terraform-assets.ts); the
 * schema the executables serve; unless left out, the SDK packages (`sdks/`: scripts/pack-sdks.ts,
 * then reproducible.ts); and `SHA256SUMS` of all of these. The same sources give the same bytes
 * in every file, the `.sig` and the SDK packages included.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageVersion } from "../build.ts";
import { packSdks, schemaText } from "../pack-sdks.ts";
import type { Log } from "../toolchain/log.ts";
import { deflated, sha256, tarGz, zip } from "./archive.ts";
import { bundleExecutable, type ExecutableBundle } from "./bundle.ts";
import { exeSuffix, platformName, type Platform } from "./platforms.ts";
import { filesUnder, normalizeSdkPackages, sourceDateEpoch } from "./reproducible.ts";
import { buildExecutable, writeBlob } from "./sea.ts";
import { smokeTest } from "./smoke.ts";
import {
  h1Hash,
  manifest,
  manifestName,
  signFile,
  sums,
  sumsName,
  writeFilesystemMirror,
  writeNetworkMirror,
  zipName,
  type ProviderZip,
} from "./terraform-assets.ts";

export interface ReleaseOptions {
  /** The release directory: emptied, then written. */
  out: string;
  platforms: readonly Platform[];
  /** Written into the schema and the SDKs (pack-sdks.ts); none when left out. */
  pluginDownloadUrl?: string;
  /** A GPG key to sign `..._SHA256SUMS` with. */
  gpgKey?: string;
  /** Whether to pack the SDKs into `sdks/` (the tests leave them out). */
  sdks: boolean;
  log: Log;
  /** The bundle, when made already (bundle.ts). */
  bundle?: ExecutableBundle;
}

export const pulumiArchiveName = (version: string, p: Platform) =>
  `pulumi-resource-cws-v${version}-${p.os}-${p.arch}.tar.gz`;
export const cwsArchiveName = (version: string, p: Platform) => `cws_${version}_${p.os}_${p.arch}.tar.gz`;
/** The name of the provider's executable in its zip, as OpenTofu and Terraform look for it. */
export const providerExecutableName = (version: string, p: Platform) =>
  `terraform-provider-cws_v${version}${exeSuffix(p)}`;

/**
 * The top-level file that lists the SHA-256 of every other file at the top and of every SDK package
 * (`sdks/...`); the mirrors hold the zips again.
 */
export const ALL_SUMS = "SHA256SUMS";

/** Writes the release into `options.out`. */
export async function buildRelease(options: ReleaseOptions): Promise<void> {
  const { out, log } = options;
  const version = packageVersion();
  const started = Date.now();
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // First: `npm pack` rebuilds dist/ (where the release may be).
  if (options.sdks) {
    await packSdks(join(out, "sdks"), log, { pluginDownloadUrl: options.pluginDownloadUrl });
    await normalizeSdkPackages(join(out, "sdks"));
  }
  mkdirSync(out, { recursive: true });

  const schema = schemaText(options.pluginDownloadUrl);
  writeFileSync(join(out, "schema.json"), schema);
  const bundle = options.bundle ?? (await bundleExecutable(schema));
  const codeBytes = Object.entries(bundle.assets)
    .filter(([key]) => key.startsWith("file:code/"))
    .reduce((n, [, data]) => n + data.length, 0);
  log(
    `bundled: a ${bundle.code.length} byte main script; ${(codeBytes / 1e6).toFixed(1)} MB of code and ${Object.keys(bundle.assets).length - 1} files in all as its assets`,
  );

  const blob = await writeBlob(bundle, log);
  const zips: ProviderZip[] = [];
  for (const p of options.platforms) {
    const exe = await buildExecutable(p, blob, log);
    const ran = await smokeTest(p, exe);
    log(`${platformName(p)}: ${ran ? `ran ${ran}` : "checked by its header (it cannot run here)"}`);
    const suffix = exeSuffix(p);
    const file = deflated(`pulumi-resource-cws${suffix}`, exe, 0o755);
    writeFileSync(join(out, pulumiArchiveName(version, p)), tarGz([file]));
    writeFileSync(join(out, cwsArchiveName(version, p)), tarGz([{ ...file, name: `cws${suffix}` }]));
    const inZip = providerExecutableName(version, p);
    const z = zip([{ ...file, name: inZip }]);
    const name = zipName(version, p.os, p.arch);
    writeFileSync(join(out, name), z);
    zips.push({
      os: p.os,
      arch: p.arch,
      file: name,
      sha256: sha256(z),
      h1: h1Hash([{ name: inZip, sha256: sha256(exe) }]),
    });
  }

  const manifestFile = manifestName(version);
  writeFileSync(join(out, manifestFile), manifest());
  const tfSums = join(out, sumsName(version));
  writeFileSync(
    tfSums,
    sums([
      ...zips.map((z) => ({ name: z.file, sha256: z.sha256 })),
      { name: manifestFile, sha256: sha256(manifest()) },
    ]),
  );
  if (options.gpgKey) {
    await signFile(tfSums, options.gpgKey, await sourceDateEpoch());
    log(`signed ${sumsName(version)} with ${options.gpgKey}`);
  }
  writeNetworkMirror(join(out, "network-mirror"), out, version, zips);
  writeFilesystemMirror(join(out, "filesystem-mirror"), out, zips);

  const listed = [
    ...readdirSync(out).filter((f) => statSync(join(out, f)).isFile() && f !== ALL_SUMS),
    ...(options.sdks ? filesUnder(join(out, "sdks")).map((f) => `sdks/${f}`) : []),
  ].map((f) => ({ name: f, sha256: sha256(readFileSync(join(out, f))) }));
  writeFileSync(join(out, ALL_SUMS), sums(listed));
  log(`release ${version} in ${out} (${Math.round((Date.now() - started) / 1000)}s)`);
}
