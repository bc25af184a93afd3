// bubblewrap: availability check and the command line of a sandbox.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The sandbox's writable directories, kept on disk under rootDir/<id>/fs/. */
export const WRITABLE_DIRS = ["root", "home", "tmp", "workspace", "var/tmp"] as const;

/** Host system directories visible read-only in every sandbox. */
const SYSTEM_DIRS = ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc"];

/**
 * Host files never shown to a sandbox (replaced by an empty file): its processes run as
 * uid 0 (without capabilities), which could otherwise read these root-owned secrets.
 */
const MASKED_FILES = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"];

const isRoot = process.getuid?.() === 0;

/** Whether a host path is visible (read-only) inside every sandbox. */
export function visibleInSandboxes(hostPath: string): boolean {
  let real = path.resolve(hostPath);
  // Resolve the longest existing prefix (the path itself may not exist yet).
  for (let p = real, rest = ""; ;) {
    try {
      real = path.join(fs.realpathSync(p), rest);
      break;
    } catch {
      const parent = path.dirname(p);
      if (parent === p) break;
      rest = path.join(path.basename(p), rest);
      p = parent;
    }
  }
  return SYSTEM_DIRS.some((d) => {
    let dir = `/${d}`;
    try {
      dir = fs.realpathSync(dir);
    } catch {
      return false;
    }
    return real === dir || real.startsWith(dir + "/");
  });
}

/** The bwrap binary: $CWS_BWRAP when set, else the first `bwrap` on PATH (or in /usr/bin). */
export function findBwrap(): string | undefined {
  const forced = process.env.CWS_BWRAP;
  if (forced) {
    try {
      fs.accessSync(forced, fs.constants.X_OK);
      return forced;
    } catch {
      return undefined;
    }
  }
  const dirs = (process.env.PATH ?? "").split(":").filter(Boolean);
  for (const dir of [...dirs, "/usr/bin", "/bin", "/usr/local/bin"]) {
    const p = path.join(dir, "bwrap");
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/** Namespace and privilege options shared by the probe and the real sandboxes. */
function isolationArgs(hostname: string): string[] {
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--hostname",
    hostname,
  ];
  // Without root, bwrap needs a user namespace; uid/gid 0 inside map to the server's user.
  if (!isRoot) args.push("--unshare-user", "--uid", "0", "--gid", "0");
  // Sandbox "root" keeps no capability (as root, bwrap would otherwise keep them all).
  args.push("--cap-drop", "ALL");
  return args;
}

let cachedOk: string | undefined; // the bwrap path that passed the probe

/**
 * Whether bwrap is installed AND can create the namespaces a sandbox needs here (it runs
 * a throw-away sandbox once; a success is remembered).
 */
export function bubblewrapStatus(): { available: boolean; reason?: string } {
  const bwrap = findBwrap();
  if (bwrap && bwrap === cachedOk) return { available: true };
  if (!bwrap) {
    return {
      available: false,
      reason: "bubblewrap (bwrap) is not installed; install the Debian package bubblewrap",
    };
  }
  const r = spawnSync(
    bwrap,
    [...isolationArgs("cws-probe"), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
    { encoding: "utf8", timeout: 15_000 },
  );
  if (r.error || r.status !== 0) {
    const why = (r.stderr || r.error?.message || `exit status ${r.status}`).trim();
    return {
      available: false,
      reason: `bubblewrap (${bwrap}) cannot create the sandbox namespaces on this host: ${why}`,
    };
  }
  cachedOk = bwrap;
  return { available: true };
}

export function bwrapPath(): string {
  return findBwrap() ?? "bwrap";
}

export interface BwrapPlan {
  hostname: string;
  fsDir: string; // rootDir/<id>/fs
  ctlDir: string; // host socket, generated /etc/hosts and /etc/hostname, an empty file
  nodeBinary: string;
  /** agent.mts to bind and run; when undefined, the agent is ctlDir/agent.mjs. */
  agentFile: string | undefined;
  ptyHelperFile: string;
  env: Record<string, string>;
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The bwrap argument vector that runs the agent inside a new sandbox. */
export function sandboxArgs(plan: BwrapPlan): string[] {
  const a = isolationArgs(plan.hostname);
  for (const d of SYSTEM_DIRS) {
    const host = `/${d}`;
    const st = lstatOrUndefined(host);
    if (!st) continue;
    if (st.isSymbolicLink()) a.push("--symlink", fs.readlinkSync(host), host);
    else if (st.isDirectory()) a.push("--ro-bind", host, host);
  }
  // Masks are an empty regular file (binds are nodev: /dev/null would not open).
  const empty = path.join(plan.ctlDir, "empty");
  for (const f of MASKED_FILES) {
    if (lstatOrUndefined(f)?.isFile()) a.push("--ro-bind", empty, f);
  }
  try {
    for (const name of fs.readdirSync("/etc/ssh")) {
      if (/^ssh_host_.*_key$/.test(name)) a.push("--ro-bind", empty, `/etc/ssh/${name}`);
    }
  } catch {
    // no /etc/ssh
  }
  for (const f of ["hosts", "hostname"]) {
    if (lstatOrUndefined(`/etc/${f}`)?.isFile()) a.push("--ro-bind", path.join(plan.ctlDir, f), `/etc/${f}`);
  }
  a.push(
    "--proc",
    "/proc",
    // bwrap leaves /proc/sys writable, and uid 0 may write most host sysctls even
    // without capabilities: make it read-only (values stay per-namespace).
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
  );
  if (fs.existsSync("/proc/sysrq-trigger")) a.push("--ro-bind", empty, "/proc/sysrq-trigger");
  a.push("--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/run");
  for (const d of WRITABLE_DIRS) {
    if (d === "var/tmp") a.push("--dir", "/var");
    a.push("--bind", path.join(plan.fsDir, d), `/${d}`);
  }
  a.push("--symlink", "../run", "/var/run", "--symlink", "../run/lock", "/var/lock");
  a.push(
    "--ro-bind",
    plan.ctlDir,
    "/run/cws",
    "--ro-bind",
    plan.nodeBinary,
    "/.cws/node",
    "--ro-bind",
    plan.ptyHelperFile,
    "/.cws/pty_helper.py",
    // The root of the sandbox (a tmpfs holding the mount points) becomes read-only:
    // anything written outside the writable dirs fails instead of vanishing.
    "--remount-ro",
    "/",
    "--chdir",
    "/workspace",
    "--clearenv",
  );
  for (const [k, v] of Object.entries(plan.env)) a.push("--setenv", k, v);
  if (plan.agentFile) a.splice(a.indexOf("--remount-ro"), 0, "--ro-bind", plan.agentFile, "/.cws/agent.mts");
  a.push("/.cws/node", "--max-old-space-size=128", plan.agentFile ? "/.cws/agent.mts" : "/run/cws/agent.mjs");
  return a;
}
