/**
 * `npm run release [-- --out DIR] [--platforms linux-amd64,...] [--plugin-download-url URL]
 * [--gpg-key KEY] [--no-sdks] [--same-as DIR]`: the release directory (release.ts;
 * docs/releasing.md), by default dist/release/ (dist/ is not tracked).
 *
 * - `--platforms`: a comma-separated list (default: every platform of platforms.ts);
 * - `--plugin-download-url`: where the engine downloads `pulumi-resource-cws-...tar.gz` from,
 *   written into the schema and every SDK (default: none);
 * - `--gpg-key`: signs `terraform-provider-cws_<version>_SHA256SUMS` (the `.sig` the registries
 *   verify) with this key of the GPG keyring (GNUPGHOME);
 * - `--no-sdks`: leaves the SDK packages out;
 * - `--same-as DIR`: then checks that the release is byte for byte the one in DIR (an earlier run of
 *   the same checkout): the same `SHA256SUMS`, else the files that differ, and exit status 1.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { flagValue } from "../pack-sdks.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { logTo } from "../toolchain/log.ts";
import { parsePlatforms } from "./platforms.ts";
import { ALL_SUMS, buildRelease } from "./release.ts";

const KNOWN = new Set([
  "--out",
  "--platforms",
  "--plugin-download-url",
  "--gpg-key",
  "--no-sdks",
  "--same-as",
]);

/** The lines of `a`'s SHA256SUMS that `b`'s does not have, by file name. */
function differing(a: string, b: string): string[] {
  const read = (dir: string) =>
    new Map(
      readFileSync(join(dir, ALL_SUMS), "utf8")
        .trim()
        .split("\n")
        .map((l) => [l.slice(66), l.slice(0, 64)] as const),
    );
  const [x, y] = [read(a), read(b)];
  return [...new Set([...x.keys(), ...y.keys()])].filter((f) => x.get(f) !== y.get(f)).sort();
}

try {
  const argv = process.argv.slice(2);
  const unknown = argv.find((a, i) => a.startsWith("--") && !KNOWN.has(a) && !KNOWN.has(argv[i - 1] ?? ""));
  if (unknown) throw new Error(`unknown flag ${unknown}`);
  const out = flagValue(argv, "out") ?? join(REPO_ROOT, "dist", "release");
  const sameAs = flagValue(argv, "same-as");
  await buildRelease({
    out,
    platforms: parsePlatforms(flagValue(argv, "platforms")),
    pluginDownloadUrl: flagValue(argv, "plugin-download-url"),
    gpgKey: flagValue(argv, "gpg-key"),
    sdks: !argv.includes("--no-sdks"),
    log: logTo("release"),
  });
  if (sameAs) {
    const files = differing(out, sameAs);
    if (files.length) throw new Error(`${files.length} files differ from ${sameAs}: ${files.join(", ")}`);
    console.error(`[release] the same ${ALL_SUMS} as ${sameAs}`);
  }
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
}
