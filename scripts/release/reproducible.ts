/**
 * The SDK packages of a release made the same bytes from the same sources (docs/releasing.md). pip,
 * Maven and the Go module's zip date their entries by the files' times, and Maven and the Go
 * proxy's `.info` say when they were made. After `npm run pack-sdks` has written them
 * (scripts/pack-sdks.ts), each is rewritten in place:
 * - every zip (the wheel, the jar, the Go module's `.zip`): the same entries in the same order with
 *   the same contents and Unix modes, each deflated by zlib and dated 1980-01-01 (archive.ts, as
 *   the release's own zips); directory entries, which no reader of these needs, are left out;
 * - dates a file states (the Go `.info`'s `Time`, Maven's `lastUpdated`): the source date,
 *   SOURCE_DATE_EPOCH when set, else the time of the commit checked out;
 * - Maven's `.md5`/`.sha1`/... beside each changed file: computed again.
 * The npm tarball is left as `npm pack` writes it, which is already the same every time (every
 * entry dated 1985-10-26, a fixed gzip header).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { REPO_ROOT } from "../repo-root.ts";
import { run } from "../run.ts";
import { deflated, zip, type DeflatedFile } from "./archive.ts";

/** The release's source date, in seconds: SOURCE_DATE_EPOCH, else the checked-out commit's time. */
export async function sourceDateEpoch(): Promise<number> {
  const given = process.env.SOURCE_DATE_EPOCH;
  if (given !== undefined) {
    if (!/^\d+$/.test(given)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds (got '${given}')`);
    return Number(given);
  }
  const out = await run("git", ["log", "-1", "--format=%ct", "HEAD"], { cwd: REPO_ROOT });
  return Number(out.trim());
}

/** The entries of a zip: name, Unix mode (0o644 when the zip gives none) and contents. */
export function zipEntries(file: Buffer): { name: string; mode: number; data: Buffer }[] {
  let end = file.length - 22;
  while (end >= 0 && file.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error("not a zip: no end of central directory");
  const count = file.readUInt16LE(end + 10);
  let at = file.readUInt32LE(end + 16);
  const entries: { name: string; mode: number; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    if (file.readUInt32LE(at) !== 0x02014b50) throw new Error("zip: a broken central directory");
    const method = file.readUInt16LE(at + 10);
    const compressed = file.readUInt32LE(at + 20);
    const nameLength = file.readUInt16LE(at + 28);
    const extraLength = file.readUInt16LE(at + 30);
    const commentLength = file.readUInt16LE(at + 32);
    const madeBy = file.readUInt16LE(at + 4) >> 8;
    const external = file.readUInt32LE(at + 38);
    const local = file.readUInt32LE(at + 42);
    const name = file.toString("utf8", at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith("/")) continue;
    const start = local + 30 + file.readUInt16LE(local + 26) + file.readUInt16LE(local + 28);
    const raw = file.subarray(start, start + compressed);
    if (method !== 0 && method !== 8) throw new Error(`zip: ${name} is compressed by method ${method}`);
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw);
    const unix = madeBy === 3 ? (external >>> 16) & 0o777 : 0;
    entries.push({ name, mode: unix || 0o644, data });
  }
  return entries;
}

/** A zip rewritten as archive.ts writes zips. */
export function normalizedZip(file: Buffer): Buffer {
  const files: DeflatedFile[] = zipEntries(file).map((e) => deflated(e.name, e.data, e.mode));
  return zip(files);
}

/** Every file under `dir`, as paths from it, in name order. */
export function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix))
    .sort()
    .flatMap((f) => {
      const path = prefix ? `${prefix}/${f}` : f;
      return statSync(join(dir, path)).isDirectory() ? filesUnder(dir, path) : [path];
    });
}

const CHECKSUMS: Record<string, string> = { md5: "md5", sha1: "sha1", sha256: "sha256", sha512: "sha512" };

/** `YYYYMMDDHHMMSS` (UTC) of `seconds`, as Maven's metadata dates. */
const mavenTime = (seconds: number) =>
  new Date(seconds * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14);

/** Rewrites the SDK packages under `dir` (a release's `sdks/`) as the same sources always give them. */
export async function normalizeSdkPackages(dir: string): Promise<void> {
  const epoch = await sourceDateEpoch();
  const changed = new Set<string>();
  const rewrite = (path: string, data: Buffer | string) => {
    const file = join(dir, path);
    const next = Buffer.from(data);
    if (next.equals(readFileSync(file))) return;
    writeFileSync(file, next);
    changed.add(path);
  };
  for (const path of filesUnder(dir)) {
    const file = join(dir, path);
    if (/\.(whl|jar|zip)$/.test(path)) rewrite(path, normalizedZip(readFileSync(file)));
    else if (/\/@v\/[^/]+\.info$/.test(path)) {
      const info = JSON.parse(readFileSync(file, "utf8")) as { Version: string; Time?: string };
      rewrite(path, `${JSON.stringify({ ...info, Time: new Date(epoch * 1000).toISOString() })}\n`);
    } else if (/(^|\/)maven-metadata[^/]*\.xml$/.test(path))
      rewrite(
        path,
        readFileSync(file, "utf8").replace(
          /<lastUpdated>\d+<\/lastUpdated>/g,
          `<lastUpdated>${mavenTime(epoch)}</lastUpdated>`,
        ),
      );
  }
  for (const path of changed)
    for (const [ext, algorithm] of Object.entries(CHECKSUMS))
      if (existsSync(join(dir, `${path}.${ext}`)))
        writeFileSync(
          join(dir, `${path}.${ext}`),
          createHash(algorithm)
            .update(readFileSync(join(dir, path)))
            .digest("hex"),
        );
}
