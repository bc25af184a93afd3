/**
 * The release's archives and the OpenTofu/Terraform assets (scripts/release/archive.ts,
 * terraform-assets.ts): readable by the usual tools with names, modes and contents intact, the same
 * bytes from the same files, the registries' manifest and sums, and a signature gpg verifies, the
 * same bytes again when dated by the release's source date.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pythonZipListing } from "../helpers/zip-listing.ts";
import { deflated, sha256, tarGz, zip } from "../../scripts/release/archive.ts";
import {
  h1Hash,
  manifest,
  signFile,
  sums,
  writeFilesystemMirror,
  writeNetworkMirror,
} from "../../scripts/release/terraform-assets.ts";
import { onPath, run, runProcess } from "../../scripts/run.ts";

const dir = mkdtempSync(join(tmpdir(), "cws-archives-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exe = Buffer.from(`#!/bin/sh\necho released\n${"x".repeat(1000)}\n`);
const readme = Buffer.from("one more file, 513 bytes long ".repeat(17).slice(0, 513));

describe("archives", () => {
  const files = () => [deflated("pulumi-resource-cws", exe, 0o755), deflated("README.md", readme)];

  it("a .tar.gz of gzip members that tar unpacks with names, modes and contents, dated 1970", async () => {
    const file = join(dir, "a.tar.gz");
    writeFileSync(file, tarGz(files()));
    const out = join(dir, "tar-out");
    mkdirSync(out);
    await run("tar", ["-xzf", file, "-C", out]);
    expect(readFileSync(join(out, "pulumi-resource-cws"))).toEqual(exe);
    expect(readFileSync(join(out, "README.md"))).toEqual(readme);
    expect(statSync(join(out, "pulumi-resource-cws")).mode & 0o777).toBe(0o755);
    expect(statSync(join(out, "README.md")).mode & 0o777).toBe(0o644);
    expect(statSync(join(out, "README.md")).mtimeMs).toBe(0);
    // Python's tarfile (one reader of several) reads the members as one stream too.
    const names = await run("python3", [
      "-c",
      "import sys, tarfile; print(tarfile.open(sys.argv[1]).getnames())",
      file,
    ]);
    expect(names.trim()).toBe("['pulumi-resource-cws', 'README.md']");
  });

  it("a zip with Unix modes that Python's zipfile reads", async () => {
    const file = join(dir, "a.zip");
    writeFileSync(file, zip(files()));
    const listing = await pythonZipListing(file);
    expect(listing.trim().split("\n")).toEqual([
      `pulumi-resource-cws 0o100755 (1980, 1, 1, 0, 0, 0) ${exe.length}`,
      `README.md 0o100644 (1980, 1, 1, 0, 0, 0) ${readme.length}`,
    ]);
  });

  it("the same files make the same bytes", () => {
    expect(sha256(tarGz(files()))).toBe(sha256(tarGz(files())));
    expect(sha256(zip(files()))).toBe(sha256(zip(files())));
    expect(sha256(zip(files()))).not.toBe(sha256(zip([files()[1]!, files()[0]!])));
  });
});

describe("OpenTofu and Terraform assets", () => {
  it("h1 hashes the names and contents in name order (Go's dirhash Hash1), not the zip", () => {
    const a = { name: "b", sha256: sha256("B") };
    const b = { name: "a", sha256: sha256("A") };
    expect(h1Hash([a, b])).toBe(h1Hash([b, a]));
    const summary = `${sha256("A")}  a\n${sha256("B")}  b\n`;
    expect(h1Hash([a, b])).toBe(`h1:${Buffer.from(sha256(summary), "hex").toString("base64")}`);
  });

  it("the manifest says protocol 6.0; the sums list each file once, in name order", () => {
    expect(JSON.parse(manifest())).toEqual({ version: 1, metadata: { protocol_versions: ["6.0"] } });
    expect(
      sums([
        { name: "z.zip", sha256: "2".repeat(64) },
        { name: "a.zip", sha256: "1".repeat(64) },
      ]),
    ).toBe(`${"1".repeat(64)}  a.zip\n${"2".repeat(64)}  z.zip\n`);
  });

  it("the mirrors: index and version documents per registry host, each zip beside them", () => {
    const release = join(dir, "release");
    mkdirSync(release);
    writeFileSync(join(release, "p_1.0.0_linux_amd64.zip"), "zip");
    const zips = [{ os: "linux", arch: "amd64", file: "p_1.0.0_linux_amd64.zip", sha256: "ab", h1: "h1:x=" }];
    writeNetworkMirror(join(release, "network-mirror"), release, "1.0.0", zips);
    writeFilesystemMirror(join(release, "filesystem-mirror"), release, zips);
    for (const host of ["registry.opentofu.org", "registry.terraform.io"]) {
      const at = join(release, "network-mirror", host, "cws", "cws");
      expect(JSON.parse(readFileSync(join(at, "index.json"), "utf8"))).toEqual({ versions: { "1.0.0": {} } });
      expect(JSON.parse(readFileSync(join(at, "1.0.0.json"), "utf8"))).toEqual({
        archives: { linux_amd64: { url: "p_1.0.0_linux_amd64.zip", hashes: ["h1:x=", "zh:ab"] } },
      });
      expect(readFileSync(join(at, "p_1.0.0_linux_amd64.zip"), "utf8")).toBe("zip");
      expect(
        readFileSync(
          join(release, "filesystem-mirror", host, "cws", "cws", "p_1.0.0_linux_amd64.zip"),
          "utf8",
        ),
      ).toBe("zip");
    }
  });

  it.skipIf(!onPath("gpg"))("--gpg-key signs the sums with a detached signature gpg verifies", async () => {
    const home = join(dir, "gnupg");
    mkdirSync(home, { mode: 0o700 });
    const env = { ...process.env, GNUPGHOME: home };
    await run(
      "gpg",
      [
        "--batch",
        "--passphrase",
        "",
        "--quick-generate-key",
        "Release Test <release@example.com>",
        "ed25519",
        "sign",
        "never",
      ],
      { env },
    );
    const file = join(dir, "p_1.0.0_SHA256SUMS");
    writeFileSync(file, sums([{ name: "p_1.0.0_linux_amd64.zip", sha256: "1".repeat(64) }]));
    const previous = process.env.GNUPGHOME;
    process.env.GNUPGHOME = home;
    try {
      const sig = await signFile(file, "release@example.com");
      expect(sig).toBe(`${file}.sig`);
      expect(readFileSync(sig)[0]! & 0x80).toBe(0x80); // binary OpenPGP, not armored
      const verify = await runProcess("gpg", ["--batch", "--verify", sig, file], { env, allowFailure: true });
      expect(verify.code, verify.output).toBe(0);
      // Dated by the release's source date (here before the key was made: then the key's own
      // time), the same file gives the same signature every time, and it verifies.
      const first = readFileSync(await signFile(file, "release@example.com", 1));
      await new Promise((r) => setTimeout(r, 1100));
      const second = readFileSync(await signFile(file, "release@example.com", 1));
      expect(second.equals(first)).toBe(true);
      expect(second.equals(readFileSync(await signFile(file, "release@example.com")))).toBe(false);
      await signFile(file, "release@example.com", 1);
      const dated = await runProcess("gpg", ["--batch", "--verify", sig, file], { env, allowFailure: true });
      expect(dated.code, dated.output).toBe(0);
      writeFileSync(file, "changed\n");
      expect(
        (await runProcess("gpg", ["--batch", "--verify", sig, file], { env, allowFailure: true })).code,
      ).not.toBe(0);
    } finally {
      if (previous === undefined) delete process.env.GNUPGHOME;
      else process.env.GNUPGHOME = previous;
    }
  });
});
