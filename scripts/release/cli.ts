/**
 * `npm run release [-- --out DIR] [--platforms linux-amd64,...] [--plugin-download-url URL]
 * [--gpg-key KEY] [--no-sdks]`: the release directory (release.ts; docs/releasing.md), by default
 * dist/release/ (dist/ is not tracked).
 *
 * - `--platforms`: a comma-separated list (default: every platform of platforms.ts);
 * - `--plugin-download-url`: where the engine downloads `pulumi-resource-cws-...tar.gz` from,
 *   written into the schema and every SDK (default: none);
 * - `--gpg-key`: signs `terraform-provider-cws_<version>_SHA256SUMS` (the `.sig` the registries
 *   verify) with this key of the GPG keyring (GNUPGHOME);
 * - `--no-sdks`: leaves the SDK packages out.
 */
import { join } from "node:path";
import { flagValue } from "../pack-sdks.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { logTo } from "../toolchain/log.ts";
import { parsePlatforms } from "./platforms.ts";
import { buildRelease } from "./release.ts";

const KNOWN = new Set(["--out", "--platforms", "--plugin-download-url", "--gpg-key", "--no-sdks"]);

try {
  const argv = process.argv.slice(2);
  const unknown = argv.find((a, i) => a.startsWith("--") && !KNOWN.has(a) && !KNOWN.has(argv[i - 1] ?? ""));
  if (unknown) throw new Error(`unknown flag ${unknown}`);
  await buildRelease({
    out: flagValue(argv, "out") ?? join(REPO_ROOT, "dist", "release"),
    platforms: parsePlatforms(flagValue(argv, "platforms")),
    pluginDownloadUrl: flagValue(argv, "plugin-download-url"),
    gpgKey: flagValue(argv, "gpg-key"),
    sdks: !argv.includes("--no-sdks"),
    log: logTo("release"),
  });
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
}
