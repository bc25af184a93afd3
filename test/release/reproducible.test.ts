/**
 * The SDK packages made the same bytes from the same contents (scripts/release/reproducible.ts):
 * two zips that differ only in their dates, order of making and compression become one, which
 * Python's zipfile reads with the names, modes and contents intact; the dates the Go proxy's
 * `.info` and Maven's metadata state become the source date, with Maven's checksums made again.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pythonZipListing } from "../helpers/zip-listing.ts";
import { normalizedZip, normalizeSdkPackages, zipEntries } from "../../scripts/release/reproducible.ts";
import { run } from "../../scripts/run.ts";

const dir = mkdtempSync(join(tmpdir(), "cws-reproducible-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A zip as Python's zipfile writes it: entries dated `date`, compressed at `level`, a directory entry. */
async function pythonZip(file: string, date: string, level: number): Promise<Buffer> {
  await run("python3", [
    "-c",
    `import sys, zipfile
date = tuple(int(x) for x in sys.argv[2].split(","))
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=int(sys.argv[3])) as z:
    z.writestr(zipfile.ZipInfo("pulumi_cws/", date), "")
    for name, mode, data in [("pulumi_cws/__init__.py", 0o644, "x = 1\\n" * 50), ("bin/tool", 0o755, "#!/bin/sh\\n")]:
        info = zipfile.ZipInfo(name, date)
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, data)`,
    file,
    date,
    String(level),
  ]);
  return readFileSync(file);
}

describe("reproducible SDK packages", () => {
  it("makes two zips of the same entries made at different times the same bytes, still readable", async () => {
    const a = await pythonZip(join(dir, "a.whl"), "2026,11,28,15,0,2", 6);
    const b = await pythonZip(join(dir, "b.whl"), "2027,1,2,3,4,6", 9);
    expect(a.equals(b)).toBe(false);
    const [na, nb] = [normalizedZip(a), normalizedZip(b)];
    expect(na.equals(nb)).toBe(true);
    expect(zipEntries(na)).toEqual(zipEntries(a));
    writeFileSync(join(dir, "n.whl"), na);
    const listing = await pythonZipListing(join(dir, "n.whl"));
    expect(listing.trim().split("\n")).toEqual([
      "pulumi_cws/__init__.py 0o100644 (1980, 1, 1, 0, 0, 0) 300",
      "bin/tool 0o100755 (1980, 1, 1, 0, 0, 0) 10",
    ]);
  });

  it("dates the Go proxy's .info and Maven's metadata by the source date and makes Maven's sums again", async () => {
    const sdks = join(dir, "sdks");
    const info = join(sdks, "go-proxy", "example.com", "@v");
    const maven = join(sdks, "maven", "com", "pulumi", "cws");
    mkdirSync(info, { recursive: true });
    mkdirSync(maven, { recursive: true });
    writeFileSync(join(info, "v0.1.0.info"), '{"Version":"v0.1.0","Time":"2026-11-28T15:00:01.123Z"}\n');
    const metadata = join(maven, "maven-metadata.xml");
    writeFileSync(
      metadata,
      "<metadata><versioning><lastUpdated>20261128150001</lastUpdated></versioning></metadata>\n",
    );
    writeFileSync(`${metadata}.sha1`, "stale");
    const previous = process.env.SOURCE_DATE_EPOCH;
    process.env.SOURCE_DATE_EPOCH = "1764000000"; // 2025-11-24T16:00:00Z
    try {
      await normalizeSdkPackages(sdks);
    } finally {
      if (previous === undefined) delete process.env.SOURCE_DATE_EPOCH;
      else process.env.SOURCE_DATE_EPOCH = previous;
    }
    expect(readFileSync(join(info, "v0.1.0.info"), "utf8")).toBe(
      '{"Version":"v0.1.0","Time":"2025-11-24T16:00:00.000Z"}\n',
    );
    const xml = readFileSync(metadata);
    expect(xml.toString()).toContain("<lastUpdated>20251124160000</lastUpdated>");
    expect(readFileSync(`${metadata}.sha1`, "utf8")).toBe(createHash("sha1").update(xml).digest("hex"));
  });
});
