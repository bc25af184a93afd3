/**
 * A first run of a release executable where this machine can run it: natively on its own platform,
 * and linux-arm64 under qemu-user (Debian's `qemu-user`, with the arm64 C and C++ libraries of
 * `libc6-arm64-cross` and `libstdc++6-arm64-cross`; scripts/setup.sh installs them). It runs as
 * `cws --help` and as `pulumi-resource-cws`, which must print its port line: the blob, the files
 * it writes and the busybox roles all work. Other platforms are checked by their headers and the
 * blob's fuse (sea.ts), the macOS ones also by their signature and the blob read back.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onPath, runProcess } from "../run.ts";
import { hostPlatform, platformName, type Platform } from "./platforms.ts";

/** The arm64 libraries qemu-aarch64 loads the dynamically linked Node binary with. */
const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";

/** How to run an executable of `platform` here: its command prefix, or undefined when it cannot be. */
export function runner(platform: Platform): string[] | undefined {
  const host = hostPlatform();
  if (host && platformName(host) === platformName(platform)) return [];
  if (platform.os === "linux" && platform.arch === "arm64" && process.platform === "linux") {
    const qemu = onPath("qemu-aarch64");
    if (qemu && existsSync(ARM64_SYSROOT)) return [qemu, "-L", ARM64_SYSROOT];
  }
  return undefined;
}

/** The first line `cmd args` prints on stdout (it is then stopped), within `ms`. */
function firstLine(cmd: string, args: string[], env: NodeJS.ProcessEnv, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
      else reject(new Error(`${[cmd, ...args].join(" ")} printed no line:\n${err}`));
    });
  });
}

/**
 * Runs the executable of `platform` (its bytes) as `cws --help` and as the Pulumi plugin. Resolves
 * to how it ran (`natively`, `under qemu-aarch64`), or undefined when it cannot run here.
 */
export async function smokeTest(platform: Platform, exe: Buffer): Promise<string | undefined> {
  const prefix = runner(platform);
  if (!prefix) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "cws-smoke-"));
  try {
    const cws = join(dir, "cws");
    writeFileSync(cws, exe);
    chmodSync(cws, 0o755);
    const plugin = join(dir, "pulumi-resource-cws");
    symlinkSync(cws, plugin);
    const [cmd, ...args] = [...prefix, cws];
    // Its files go to a cache of its own, removed with it.
    const env = { ...process.env, XDG_CACHE_HOME: join(dir, "cache") };
    const help = await runProcess(cmd!, [...args, "--help"], { env });
    if (!help.stdout.startsWith("Usage: cws")) throw new Error(`cws --help printed:\n${help.output}`);
    // Under qemu a start takes seconds, not milliseconds.
    const [pcmd, ...pargs] = [...prefix, plugin];
    const port = await firstLine(pcmd!, [...pargs, "127.0.0.1:1"], env, 60_000);
    if (!/^\d+$/.test(port)) throw new Error(`pulumi-resource-cws printed '${port}', not its port`);
    return prefix.length ? `under ${prefix[0]!.split("/").at(-1)}` : "natively";
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
