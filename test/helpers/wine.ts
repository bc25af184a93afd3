/**
 * Windows under Wine, for the Windows check (test/e2e/windows/): Debian's Wine 8.0 running the
 * release's windows-amd64 executables in a 64-bit prefix set to Windows 10, cached in
 * `~/.cache/pulumi-cws/wine/` beside the built tools (a cold prefix takes about 35 s and 700 MB).
 *
 * Wine is not Windows. What it needs beyond Windows is here, each named, and nowhere in the
 * product:
 * - WINDOWS_10: the prefix says Windows 10 (`winecfg /v win10`); Wine 8.0's default, Windows 7, is
 *   one Node 22 refuses to start on ("8.1 or lower").
 * - PROCESS_PRNG: a stand-in `bcryptprimitives.dll` exporting `ProcessPrng` in the prefix's
 *   system32, built here with mingw-w64: Go 1.22+ programs (tofu.exe) take their random bytes from
 *   it, and Wine 8.0 has no such DLL (Windows 10 does). It answers from RtlGenRandom.
 * - OUTPUT_TO_FILES: a program's stdout and stderr are files, never pipes: Node under Wine 8.0 dies
 *   with `open EBADF` when either is a Linux pipe.
 * - NO_TCP_KEEPALIVE: a `--require` preload (NODE_OPTIONS) that leaves TCP keep-alive off. Node's
 *   HTTP clients set it on a socket before it connects, which Wine 8.0 refuses (`setsockopt
 *   IPPROTO_TCP 0x3`), so every outgoing connection would fail with `connect UNKNOWN`. Windows
 *   accepts it; only the plugins' calls to the service need this.
 * - QUIET_WINEBOOT: the prefix is made without Mono and Gecko (`WINEDLLOVERRIDES=mscoree,mshtml=`),
 *   which would otherwise ask to be installed in a window, and with WINEDEBUG=-all.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { onPath, runProcess, type RunResult } from "../../scripts/run.ts";
import { toolchainCache } from "../../scripts/toolchain/go-build.ts";

/** WINDOWS_10 and QUIET_WINEBOOT: the environment of every Wine command. */
const WINE_ENV = { WINEARCH: "win64", WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=" };

/** PROCESS_PRNG: the stand-in's source (Go calls `ProcessPrng(buffer, length)`, which never fails). */
const PROCESS_PRNG_C = `#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}
`;
const PROCESS_PRNG_DEF = "LIBRARY bcryptprimitives.dll\nEXPORTS\nProcessPrng\n";
const MINGW_GCC = "x86_64-w64-mingw32-gcc";

/** NO_TCP_KEEPALIVE: the preload, loaded by every Node program started here. */
const NO_TCP_KEEPALIVE_JS = `"use strict";
// Wine 8.0 refuses TCP keep-alive on a socket that is not connected yet (see test/helpers/wine.ts).
const net = require("node:net");
net.Socket.prototype.setKeepAlive = function () { return this; };
`;

/** What the prefix is made of: a change of any gives a new one. */
function prefixKey(wineVersion: string): string {
  return createHash("sha256")
    .update([wineVersion, "win10", PROCESS_PRNG_C, PROCESS_PRNG_DEF].join("\0"))
    .digest("hex")
    .slice(0, 12);
}

/** `C:\...`-style path of a Linux path, as Wine's Z: drive shows it. */
export function windowsPath(path: string): string {
  return `Z:${path.replaceAll("/", "\\")}`;
}

export interface Wine {
  /** The prefix (WINEPREFIX). */
  prefix: string;
  /** The environment of a program started under it: WINE_ENV, WINEPREFIX and NO_TCP_KEEPALIVE. */
  env: Record<string, string>;
  /** `%LOCALAPPDATA%` of the prefix's user, as a Linux path. */
  localAppData: string;
}

/** Why Wine cannot be used here, or undefined when it can. */
export function wineMissing(): string | undefined {
  if (!onPath("wine")) return "wine is not installed (scripts/setup-tests.sh installs it)";
  if (!onPath(MINGW_GCC)) return `${MINGW_GCC} is not installed (scripts/setup-tests.sh installs it)`;
  return undefined;
}

async function wine(prefix: string, args: string[]): Promise<RunResult> {
  return runProcess("wine", args, { env: { ...process.env, ...WINE_ENV, WINEPREFIX: prefix } });
}

/** The cached prefix, made first when missing; `scratch` holds the preload. */
export async function ensureWine(scratch: string, log: (line: string) => void): Promise<Wine> {
  const version = (await runProcess("wine", ["--version"])).stdout.trim();
  const prefix = join(toolchainCache(), "wine", `win64-win10-${prefixKey(version)}`);
  if (!existsSync(join(prefix, ".complete"))) {
    const started = Date.now();
    log(`making the Wine prefix ${prefix} (${version}; once)`);
    const temp = `${prefix}.tmp-${process.pid}`;
    rmSync(temp, { recursive: true, force: true });
    mkdirSync(temp, { recursive: true });
    await wine(temp, ["wineboot", "-i"]);
    await wine(temp, ["winecfg", "/v", "win10"]); // WINDOWS_10
    // PROCESS_PRNG: built into the prefix's system32, where Go's runtime loads it from.
    const src = join(temp, "process-prng");
    mkdirSync(src);
    writeFileSync(join(src, "prng.c"), PROCESS_PRNG_C);
    writeFileSync(join(src, "bcryptprimitives.def"), PROCESS_PRNG_DEF);
    await runProcess(MINGW_GCC, [
      "-O2",
      "-shared",
      "-s",
      "-o",
      join(temp, "drive_c", "windows", "system32", "bcryptprimitives.dll"),
      join(src, "prng.c"),
      join(src, "bcryptprimitives.def"),
      "-ladvapi32",
    ]);
    await runProcess("wineserver", ["-w"], { env: { ...process.env, WINEPREFIX: temp } });
    writeFileSync(join(temp, ".complete"), `${version}\n`);
    rmSync(prefix, { recursive: true, force: true });
    renameSync(temp, prefix);
    log(`made the Wine prefix in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  const preload = join(scratch, "no-tcp-keepalive.cjs");
  writeFileSync(preload, NO_TCP_KEEPALIVE_JS);
  const user = process.env.USER || "root";
  return {
    prefix,
    env: { ...WINE_ENV, WINEPREFIX: prefix, NODE_OPTIONS: `--require ${windowsPath(preload)}` },
    localAppData: join(prefix, "drive_c", "users", user, "AppData", "Local"),
  };
}

/** A program started under Wine, its stdout and stderr in files (OUTPUT_TO_FILES). */
export interface WineProcess {
  pid: number;
  stdout(): string;
  stderr(): string;
  /** The exit code (null when a signal ended it) once it has ended. */
  exited: Promise<number | null>;
  /** Resolves to the first match of `re` in stdout + stderr, within `ms`. */
  waitFor(re: RegExp, ms: number): Promise<RegExpExecArray>;
  kill(signal: NodeJS.Signals): void;
}

let outputs = 0;

/** Starts `exe` (a Linux path) under Wine in `cwd`, with `env` on top of Wine's and this process's. */
export function startUnderWine(
  w: Wine,
  exe: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; outputDir: string },
): WineProcess {
  const n = ++outputs;
  const out = join(opts.outputDir, `wine-${n}.out`);
  const err = join(opts.outputDir, `wine-${n}.err`);
  const [fdOut, fdErr] = [openSync(out, "w"), openSync(err, "w")];
  const child = spawn("wine", [exe, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...w.env, ...opts.env },
    stdio: ["ignore", fdOut, fdErr],
  });
  closeSync(fdOut);
  closeSync(fdErr);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const read = (f: string) => (existsSync(f) ? readFileSync(f, "utf8") : "");
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    pid: child.pid!,
    stdout: () => read(out),
    stderr: () => read(err),
    exited,
    async waitFor(re, ms) {
      const until = Date.now() + ms;
      for (;;) {
        const m = re.exec(read(out) + read(err));
        if (m) return m;
        if (ended || Date.now() > until)
          throw new Error(
            `${exe} ${ended ? "ended" : `printed nothing matching ${re} in ${ms} ms`}:\n${read(out)}${read(err)}`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    kill: (signal) => child.kill(signal),
  };
}

/** Runs `exe` under Wine to its end: its exit code and what it printed (stdout, then stderr). */
export async function runUnderWine(
  w: Wine,
  exe: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; outputDir: string },
): Promise<{ code: number | null; output: string }> {
  const p = startUnderWine(w, exe, args, opts);
  const code = await p.exited;
  return { code, output: p.stdout() + p.stderr() };
}

/** Ends the prefix's wineserver and every program still running under it. */
export async function stopWine(w: Wine): Promise<void> {
  await runProcess("wineserver", ["-k"], {
    env: { ...process.env, WINEPREFIX: w.prefix },
    allowFailure: true,
  });
}
