/**
 * A platform's release executable: a Node single executable application. The bundle
 * (bundle.ts: one CommonJS script and the files its code reads, as assets) becomes a blob
 * (`node --experimental-sea-config`, by this machine's build of the Node version every executable
 * is made of: platforms.ts), which postject (npm, 1.0.0-alpha.6) puts into a copy of each
 * platform's Node binary. One blob serves every platform.
 *
 * Before that, the binary is made smaller or injectable: linux binaries lose their symbols and
 * debug information (`llvm-strip`: about a sixth of the file, never used at run time), macOS and
 * Windows binaries their code signature (which the injection would break: executable-format.ts).
 * After it, the macOS executables are signed again, ad hoc (`rcodesign`: tools.ts): macOS runs no
 * unsigned arm64 program. The signature's hashes are then checked against the file
 * (executable-format.ts) and the blob read back from its section, byte for byte.
 *
 * The blob holds no V8 code cache or startup snapshot (`useCodeCache`, `useSnapshot`): both are
 * made by the Node that writes the blob and good only on its own machine type, so a snapshot could
 * be made here for linux-amd64 alone, never for macOS; the roles' code gets Node's compile cache at
 * run time instead (cli/executable.ts). docs/releasing.md has the start's figures.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onPath, run, runProcess } from "../run.ts";
import type { Log } from "../toolchain/log.ts";
import type { ExecutableBundle } from "./bundle.ts";
import {
  executableFormat,
  hasSeaBlob,
  machOSection,
  SEA_FUSE,
  verifyAdHocSignature,
  withoutMachOSignature,
  withoutPeSignature,
} from "./executable-format.ts";
import { hostPlatform, nodeBinary, platformName, RELEASE_NODE_VERSION, type Platform } from "./platforms.ts";
import { rcodesign } from "./tools.ts";

const FORMAT: Record<string, string> = { linux: "ELF", darwin: "Mach-O", windows: "PE" };
/** Where postject puts the blob in a Mach-O file. */
export const MACHO_SEA_SEGMENT = "NODE_SEA";
export const MACHO_SEA_SECTION = "__NODE_SEA_BLOB";
/** The identifier of the macOS executables' signature (the same file serves every name). */
export const SIGNING_IDENTIFIER = "cws";

interface Postject {
  inject(
    file: string,
    name: string,
    data: Buffer,
    options: { sentinelFuse: string; machoSegmentName?: string },
  ): Promise<void>;
}

/**
 * A linux binary without its symbols and debug information, by LLVM's `llvm-strip` (Debian's
 * `llvm`), which reads every ELF machine (binutils' `strip` reads only the host's): false when it is
 * not installed. One tool for every build, since two tools strip a file into different bytes.
 */
async function strip(input: string, output: string): Promise<boolean> {
  const tool = onPath("llvm-strip");
  if (!tool) return false;
  await runProcess(tool, ["--strip-all", "-o", output, input]);
  return existsSync(output);
}

/** The blob of `bundle`, written by this machine's build of RELEASE_NODE_VERSION. */
export async function writeBlob(bundle: ExecutableBundle, log: Log): Promise<Buffer> {
  const host = hostPlatform();
  if (!host) throw new Error(`no Node ${RELEASE_NODE_VERSION} build for ${process.platform}-${process.arch}`);
  const blobNode = await nodeBinary(host.node, log);
  const scratch = mkdtempSync(join(tmpdir(), "cws-sea-"));
  try {
    writeFileSync(join(scratch, "main.cjs"), bundle.code);
    const assets: Record<string, string> = {};
    Object.keys(bundle.assets)
      .sort()
      .forEach((key, i) => {
        writeFileSync(join(scratch, `asset-${i}`), bundle.assets[key]!);
        assets[key] = `asset-${i}`;
      });
    // Relative names: the blob keeps the main script's name as given (a temporary folder's name
    // would make every build differ).
    const config = {
      main: "main.cjs",
      output: "blob",
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      useSnapshot: false,
      assets,
    };
    writeFileSync(join(scratch, "sea-config.json"), JSON.stringify(config));
    await run(blobNode, ["--experimental-sea-config", join(scratch, "sea-config.json")], { cwd: scratch });
    return readFileSync(join(scratch, "blob"));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A digest to compare blobs by in messages. */
const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/**
 * Signs the Mach-O file `exe` ad hoc in place, then checks the signature's every hash
 * (executable-format.ts). Not by `rcodesign verify`: it expects a CMS signature, which an ad hoc
 * one does not have, and refuses every ad hoc signature ("CMS error: missing further values").
 */
async function signAdHoc(exe: string, log: Log): Promise<void> {
  await runProcess(await rcodesign(log), ["sign", "--binary-identifier", SIGNING_IDENTIFIER, exe]);
  const { identifier } = verifyAdHocSignature(readFileSync(exe));
  if (identifier !== SIGNING_IDENTIFIER)
    throw new Error(`signed as '${identifier}', not '${SIGNING_IDENTIFIER}'`);
}

/** The executable of `platform`: its Node binary with `blob` in (macOS: signed ad hoc). */
export async function buildExecutable(platform: Platform, blob: Buffer, log: Log): Promise<Buffer> {
  const target = await nodeBinary(platform.node, log);
  const scratch = mkdtempSync(join(tmpdir(), "cws-sea-"));
  try {
    const exe = join(scratch, "executable");
    if (platform.os === "linux" && (await strip(target, exe))) {
      // stripped into place
    } else {
      let binary: Buffer = readFileSync(target);
      if (platform.os === "darwin") binary = withoutMachOSignature(binary);
      if (platform.os === "windows") binary = withoutPeSignature(binary);
      if (platform.os === "linux")
        log(`llvm-strip is not installed: the ${platformName(platform)} binary is kept whole`);
      writeFileSync(exe, binary, { mode: 0o755 });
    }
    const postject = createRequire(import.meta.url)("postject") as Postject;
    await postject.inject(exe, "NODE_SEA_BLOB", blob, {
      sentinelFuse: SEA_FUSE,
      ...(platform.os === "darwin" ? { machoSegmentName: MACHO_SEA_SEGMENT } : {}),
    });
    if (platform.os === "darwin") await signAdHoc(exe, log);
    const out = readFileSync(exe);
    const format = executableFormat(out);
    if (format?.format !== FORMAT[platform.os] || format.arch !== platform.arch || !hasSeaBlob(out))
      throw new Error(
        `the ${platformName(platform)} executable is ${format ? `${format.format} ${format.arch}` : "of no known format"}${hasSeaBlob(out) ? "" : ", without its blob"}`,
      );
    if (platform.os === "darwin") {
      const inside = machOSection(out, MACHO_SEA_SEGMENT, MACHO_SEA_SECTION);
      if (!inside?.equals(blob))
        throw new Error(
          `the ${platformName(platform)} executable's blob is not the one written (${inside ? `${inside.length} bytes, ${digest(inside)}` : "none"}; written: ${blob.length} bytes, ${digest(blob)})`,
        );
    }
    const signed = platform.os === "darwin" ? ", signed ad hoc" : "";
    log(
      `${platformName(platform)}: Node ${RELEASE_NODE_VERSION}${signed}, ${(out.length / 1e6).toFixed(1)} MB`,
    );
    return out;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
