/**
 * A platform's release executable: a Node single executable application. The bundle
 * (bundle.ts: one CommonJS script and the files its code reads, as assets) becomes a blob
 * (`node --experimental-sea-config`, by the Node version the executable is made of), which postject
 * (npm, 1.0.0-alpha.6) puts into a copy of that platform's Node binary (platforms.ts).
 *
 * Before that, the binary is made smaller or injectable: linux binaries lose their symbols and
 * debug information (`llvm-strip`: 18 to 23 MB of 127 MB, never used at run time), macOS and
 * Windows binaries their code signature (which the injection would break: executable-format.ts).
 *
 * The blob holds no V8 code cache or snapshot (`useCodeCache`, `useSnapshot`: both made by the Node
 * that writes the blob, good only on the same machine type): every platform's blob is made alike,
 * and the main script is small anyway; the roles' code gets Node's compile cache at run time
 * (cli/executable.ts).
 */
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
  SEA_FUSE,
  withoutMachOSignature,
  withoutPeSignature,
} from "./executable-format.ts";
import {
  hostPlatform,
  nodeBinary,
  platformName,
  projectNodeVersion,
  servedNodeVersion,
  type Platform,
} from "./platforms.ts";

const FORMAT: Record<string, string> = { linux: "ELF", darwin: "Mach-O", windows: "PE" };

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

/**
 * The executable of `platform`: its Node binary with the bundle's blob in. `nodeVersion`: the Node
 * to build with (the project's when left out).
 */
export async function buildExecutable(
  platform: Platform,
  bundle: ExecutableBundle,
  log: Log,
  nodeVersion = projectNodeVersion(),
): Promise<Buffer> {
  const host = hostPlatform();
  const isHost = host !== undefined && platformName(host) === platformName(platform);
  const version = isHost ? nodeVersion : await servedNodeVersion(platform.nodePackage, nodeVersion, log);
  const target = await nodeBinary(platform.nodePackage, version, log);
  // The blob is written by the same Node version as the binary it goes into, run here.
  const blobNode =
    `v${version}` === process.version
      ? process.execPath
      : host
        ? await nodeBinary(host.nodePackage, version, log)
        : undefined;
  if (!blobNode) throw new Error(`no Node ${version} to run on this machine to write the blob`);

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
    const blob = readFileSync(join(scratch, "blob"));

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
      ...(platform.os === "darwin" ? { machoSegmentName: "NODE_SEA" } : {}),
    });
    const out = readFileSync(exe);
    const format = executableFormat(out);
    if (format?.format !== FORMAT[platform.os] || format.arch !== platform.arch || !hasSeaBlob(out))
      throw new Error(
        `the ${platformName(platform)} executable is ${format ? `${format.format} ${format.arch}` : "of no known format"}${hasSeaBlob(out) ? "" : ", without its blob"}`,
      );
    log(`${platformName(platform)}: Node ${version}, ${(out.length / 1e6).toFixed(1)} MB`);
    return out;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
