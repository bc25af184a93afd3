/**
 * The darwin-arm64 executable, checked as far as a Linux machine can (it cannot run here): the
 * release's archives of darwin-arm64 (scripts/release/cached.ts: built once per inputs) hold one
 * Mach-O arm64 executable, signed ad hoc with a signature whose every hash matches the file (and
 * no longer once a byte of the blob changes), as rcodesign also reads it, its SEA fuse blown where
 * the Node build's is not, and in its NODE_SEA segment the blob Node 22.20.0 writes for this
 * checkout's bundle, byte for byte.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleExecutable } from "../../../scripts/release/bundle.ts";
import { cachedRelease } from "../../../scripts/release/cached.ts";
import {
  executableFormat,
  hasSeaBlob,
  machOSection,
  machOSignature,
  SEA_FUSE,
  verifyAdHocSignature,
} from "../../../scripts/release/executable-format.ts";
import { nodeBinary, platformNamed, RELEASE_NODE_VERSION } from "../../../scripts/release/platforms.ts";
import {
  cwsArchiveName,
  providerExecutableName,
  pulumiArchiveName,
} from "../../../scripts/release/release.ts";
import { zipEntries } from "../../../scripts/release/reproducible.ts";
import { MACHO_SEA_SECTION, MACHO_SEA_SEGMENT, writeBlob } from "../../../scripts/release/sea.ts";
import { zipName } from "../../../scripts/release/terraform-assets.ts";
import { rcodesign } from "../../../scripts/release/tools.ts";
import { run } from "../../../scripts/run.ts";
import { VERSION } from "../../helpers/release.ts";

const DARWIN_ARM64 = platformNamed("darwin-arm64");
const log = (line: string) => console.error(`[release] ${line}`);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("the darwin-arm64 executable", () => {
  let dir: string;
  let exe: Buffer;
  let release: string;
  beforeAll(async () => {
    release = await cachedRelease([DARWIN_ARM64], log);
    dir = mkdtempSync(join(tmpdir(), "cws-darwin-arm64-"));
    await run("tar", ["-xzf", join(release, pulumiArchiveName(VERSION, DARWIN_ARM64)), "-C", dir]);
    exe = readFileSync(join(dir, "pulumi-resource-cws"));
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is one Mach-O arm64 executable in all three archives", async () => {
    expect(executableFormat(exe)).toEqual({ format: "Mach-O", arch: "arm64" });
    expect(exe.readUInt32LE(4)).toBe(0x0100000c); // CPU_TYPE_ARM64
    await run("tar", ["-xzf", join(release, cwsArchiveName(VERSION, DARWIN_ARM64)), "-C", dir]);
    expect(sha(readFileSync(join(dir, "cws")))).toBe(sha(exe));
    // The zip's one entry.
    const entries = zipEntries(readFileSync(join(release, zipName(VERSION, "darwin", "arm64"))));
    expect(entries.map((e) => e.name)).toEqual([providerExecutableName(VERSION, DARWIN_ARM64)]);
    expect(sha(entries[0]!.data)).toBe(sha(exe));
  });

  it("is signed ad hoc: every hash of its signature matches, and a changed byte of the blob does not", async () => {
    const signed = verifyAdHocSignature(exe);
    expect(signed).toMatchObject({ identifier: "cws", codeLimit: exe.indexOf(machOSignature(exe)!) });
    // rcodesign's own reader of the signature (goblin's Mach-O parser) says the same: ad hoc, no
    // CMS signature, no certificate. (`rcodesign verify` refuses every ad hoc signature: it looks
    // for a CMS signature, which an ad hoc one has none of.)
    const info = await run(await rcodesign(log), ["print-signature-info", join(dir, "pulumi-resource-cws")]);
    expect(info).toContain("identifier: cws");
    expect(info).toContain("flags: CodeSignatureFlags(ADHOC)");
    expect(info).toContain("cms: null");
    expect(info).toContain(`signed_entity_size: ${signed.codeLimit}`);

    const blob = machOSection(exe, MACHO_SEA_SEGMENT, MACHO_SEA_SECTION)!;
    const changed = Buffer.from(exe);
    const at = exe.indexOf(blob) + Math.floor(blob.length / 2);
    changed[at] = changed[at]! ^ 0xff;
    expect(() => verifyAdHocSignature(changed)).toThrow(
      /page \d+ \(at \d+\) is not the page that was signed/,
    );
  });

  it("has its SEA fuse blown, where the Node build it is made of has not", async () => {
    const node = readFileSync(await nodeBinary(DARWIN_ARM64.node, log));
    expect(node.includes(`${SEA_FUSE}:0`)).toBe(true);
    expect(hasSeaBlob(node)).toBe(false);
    expect(hasSeaBlob(exe)).toBe(true);
    expect(exe.includes(`${SEA_FUSE}:0`)).toBe(false);
  });

  it(`carries the blob Node ${RELEASE_NODE_VERSION} writes for this checkout, its size and hash as written`, async () => {
    const written = await writeBlob(await bundleExecutable(), log);
    const inside = machOSection(exe, MACHO_SEA_SEGMENT, MACHO_SEA_SECTION);
    expect(inside?.length).toBe(written.length);
    expect(sha(inside!)).toBe(sha(written));
  });
});
