// Per-sandbox resource limits: processes, memory and disk, and the host mechanisms that
// enforce them (see ../README.md, "Limits").
//
// - processes: RLIMIT_NPROC, set inside the sandbox's user namespace (the kernel counts
//   processes per user namespace and uid, so each sandbox has its own count) and, when
//   a pids cgroup can be created, pids.max as well. fork() fails with EAGAIN past it.
// - memory: a memory cgroup (v1 memory.limit_in_bytes or v2 memory.max) when one can be
//   created; the kernel's OOM killer then kills the largest process of that sandbox.
//   Without a writable cgroup: RLIMIT_DATA on each process exec and terminals start
//   (allocations fail with ENOMEM).
// - disk: when the server runs as root, the writable dirs live on a per-sandbox ext4
//   image of that size, loop-mounted at rootDir/<id>/fs (writes fail with ENOSPC).
//   Otherwise RLIMIT_FSIZE caps each file at that size (writes past it fail with EFBIG).

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";

export interface SandboxLimits {
  /** Processes (and threads) per sandbox. */
  processes: number;
  /** Memory per sandbox, in bytes. */
  memoryBytes: number;
  /** Size of the writable dirs together, in bytes. */
  diskBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  processes: 256,
  memoryBytes: 1024 * 1024 * 1024,
  diskBytes: 1024 * 1024 * 1024,
};

const MIN_LIMITS: SandboxLimits = {
  processes: 32,
  memoryBytes: 64 * 1024 * 1024,
  diskBytes: 16 * 1024 * 1024,
};

export function resolveLimits(given: Partial<SandboxLimits> | undefined): SandboxLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[]) {
    const v = given?.[k];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < MIN_LIMITS[k]) {
      throw new TypeError(`limits.${k} must be an integer of at least ${MIN_LIMITS[k]}`);
    }
    out[k] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// cgroups

/** The cgroup directories holding one sandbox (one per v1 hierarchy, or one v2 group). */
export interface SandboxCgroup {
  dirs: string[];
  /** Whether memory is limited by the cgroup (else RLIMIT_DATA is used). */
  memory: boolean;
}

function ownCgroupPaths(): Map<string, string> {
  const m = new Map<string, string>();
  try {
    for (const line of fs.readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
      const [, ctrls, p] = line.split(":");
      if (p === undefined) continue;
      for (const c of ctrls === "" ? ["unified"] : ctrls.split(",")) m.set(c, p);
    }
  } catch {
    // no /proc/self/cgroup
  }
  return m;
}

/** Every place a cgroup of that name may exist below the server's own cgroups. */
function candidateDirs(name: string): string[] {
  const own = ownCgroupPaths();
  const out: string[] = [];
  if (own.has("unified")) out.push(path.join("/sys/fs/cgroup", own.get("unified")!, name));
  for (const ctrl of ["memory", "pids"]) {
    if (own.has(ctrl)) out.push(path.join("/sys/fs/cgroup", ctrl, own.get(ctrl)!, name));
  }
  return out;
}

/** The cgroup name of a sandbox: stable for a rootDir and id, so a leftover can be found. */
export function cgroupName(rootDir: string, id: string): string {
  return "cws-" + createHash("sha256").update(`${rootDir}\0${id}`).digest("hex").slice(0, 24);
}

/** Removes the cgroups a sandbox left (a server that died): empty ones only. */
export async function removeLeftoverCgroup(name: string): Promise<void> {
  const dirs = candidateDirs(name).filter((d) => fs.existsSync(d));
  if (dirs.length) await removeCgroup({ dirs, memory: false });
}

function tryWrite(file: string, value: string): boolean {
  try {
    fs.writeFileSync(file, value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the cgroups of one sandbox below the server's own, with the limits written.
 * Returns undefined when the host gives no writable cgroup with a memory controller.
 */
export function createCgroup(name: string, limits: SandboxLimits): SandboxCgroup | undefined {
  for (const d of candidateDirs(name)) tryRmdir(d); // left by a server that died
  const own = ownCgroupPaths();
  const v2Root = "/sys/fs/cgroup";
  if (fs.existsSync(path.join(v2Root, "cgroup.controllers")) && own.has("unified")) {
    const parent = path.join(v2Root, own.get("unified")!);
    // A v2 group can only delegate controllers to children when it holds no process
    // itself (except the root): this works when the server runs in its own delegated
    // subtree, else the fallback applies.
    tryWrite(path.join(parent, "cgroup.subtree_control"), "+memory +pids");
    const dir = path.join(parent, name);
    try {
      fs.mkdirSync(dir);
    } catch {
      return undefined;
    }
    if (!tryWrite(path.join(dir, "memory.max"), String(limits.memoryBytes))) {
      fs.rmdirSync(dir);
      return undefined;
    }
    tryWrite(path.join(dir, "memory.swap.max"), "0");
    tryWrite(path.join(dir, "pids.max"), String(limits.processes + 16));
    return { dirs: [dir], memory: true };
  }
  const dirs: string[] = [];
  let memory = false;
  for (const ctrl of ["memory", "pids"]) {
    const mount = path.join(v2Root, ctrl);
    if (!own.has(ctrl) || !fs.existsSync(path.join(mount, "cgroup.procs"))) continue;
    const dir = path.join(mount, own.get(ctrl)!, name);
    try {
      fs.mkdirSync(dir);
    } catch {
      continue;
    }
    if (ctrl === "memory") {
      memory = tryWrite(path.join(dir, "memory.limit_in_bytes"), String(limits.memoryBytes));
      // No swapping around the limit when swap accounting is on.
      tryWrite(path.join(dir, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
      tryWrite(path.join(dir, "memory.swappiness"), "0");
    } else {
      // bwrap's init and the agent's helpers come on top of the sandbox's own processes.
      tryWrite(path.join(dir, "pids.max"), String(limits.processes + 16));
    }
    dirs.push(dir);
  }
  if (!memory) {
    for (const d of dirs) tryRmdir(d);
    return undefined;
  }
  return { dirs, memory };
}

function tryRmdir(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** Removes a sandbox's cgroups once its processes are gone (retries briefly). */
export async function removeCgroup(cg: SandboxCgroup | undefined): Promise<void> {
  if (!cg) return;
  for (let i = 0; i < 50; i++) {
    if (cg.dirs.map(tryRmdir).every(Boolean)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------------------------------------------------------------------------------------
// disk

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 60_000 });
  if (r.error || r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(" ")}: ${(r.stderr || r.error?.message || `status ${r.status}`).trim()}`,
    );
  }
}

let loopUsable: boolean | undefined;

/** Whether per-sandbox disk images can be used (root, loop devices, mkfs.ext4). */
export function diskImagesUsable(): boolean {
  if (loopUsable === undefined) {
    loopUsable =
      process.getuid?.() === 0 &&
      fs.existsSync("/dev/loop-control") &&
      ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"].some((p) => fs.existsSync(p));
  }
  return loopUsable;
}

/** Creates a sparse ext4 image of `bytes` at imagePath and mounts it on mountDir. */
export async function mountDiskImage(imagePath: string, mountDir: string, bytes: number): Promise<void> {
  const fh = await fsp.open(imagePath, "wx", 0o600);
  try {
    await fh.truncate(bytes);
  } finally {
    await fh.close();
  }
  // No journal and no reserved blocks: the sandbox gets the whole size; the image is
  // throw-away (a sandbox does not survive the server).
  run("mkfs.ext4", ["-q", "-F", "-m", "0", "-O", "^has_journal", "-E", "nodiscard", imagePath]);
  await fsp.mkdir(mountDir, { recursive: true });
  run("mount", ["-o", "loop,nosuid,nodev", imagePath, mountDir]);
  await fsp.rm(path.join(mountDir, "lost+found"), { recursive: true, force: true });
}

function isMountPoint(dir: string): boolean {
  try {
    return fs
      .readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .some((l) => l.split(" ")[4] === dir);
  } catch {
    return false;
  }
}

/** Unmounts a sandbox's disk image if mounted (lazily, if something still holds it). */
export function unmountDiskImage(mountDir: string): void {
  if (!isMountPoint(mountDir)) return;
  const r = spawnSync("umount", [mountDir], { encoding: "utf8" });
  if (r.status !== 0) spawnSync("umount", ["-l", mountDir]);
}
