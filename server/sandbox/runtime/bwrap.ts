// bubblewrap: availability check and the command line of a sandbox.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The sandbox's writable directories, kept on disk under rootDir/<id>/fs/. */
export const WRITABLE_DIRS = ["root", "home", "tmp", "workspace", "var/tmp"] as const;

/** Host system directories visible read-only in every sandbox. */
const SYSTEM_DIRS = ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc"];

/**
 * Host files never shown to a sandbox (replaced by an empty file). The sandbox's host user
 * cannot read them anyway; the mask also hides that they exist and what size they have.
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

/**
 * Host uid (and gid) the sandboxes run as when the server is root: uid 0 inside a
 * sandbox's user namespace maps to it, so nothing in a sandbox has any host privilege
 * (root-only host files stay unreadable). Not an account: no file on the host is owned by
 * it except the sandboxes' own. $CWS_SANDBOX_UID overrides it. A server that is not root
 * runs sandboxes as its own user.
 */
export const SANDBOX_HOST_UID = (() => {
  const v = Number(process.env.CWS_SANDBOX_UID ?? 1879048192);
  return Number.isSafeInteger(v) && v > 0 && v < 4294967295 ? v : 1879048192;
})();

/** The host uid/gid that owns what a sandbox writes (root inside = this on the host). */
export function sandboxOwner(): { uid: number; gid: number } {
  if (isRoot) return { uid: SANDBOX_HOST_UID, gid: SANDBOX_HOST_UID };
  return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
}

/** Namespace and privilege options shared by the probe and the real sandboxes. */
function isolationArgs(hostname: string): string[] {
  return [
    "--die-with-parent",
    "--new-session",
    // Always a user namespace: uid/gid 0 inside map to an unprivileged host user.
    "--unshare-user",
    "--uid",
    "0",
    "--gid",
    "0",
    // No user namespace can be created inside (bwrap nests the sandbox in a second user
    // namespace whose limit is 0; the sandbox owns neither, so it cannot raise it).
    "--disable-userns",
    "--assert-userns-disabled",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--hostname",
    hostname,
    "--cap-drop",
    "ALL",
  ];
}

/** Host files a sandbox's bwrap binds, opened by root and shown to bwrap under VIEW_DIR. */
export interface ViewSources {
  /** rootDir/<id>: its fs/ (and usually ctl/). */
  sandboxDir?: string;
  ctlDir?: string;
  nodeBinary?: string;
  ptyHelperFile?: string;
  agentFile?: string;
  /** The bwrap binary itself (it may live under the hidden /tmp, e.g. $CWS_BWRAP). */
  bwrap?: string;
}

/**
 * Where bwrap finds the ViewSources when the server is root: a private tmpfs mounted on
 * /tmp in a mount namespace of the launcher only, holding bind mounts of the sources made
 * through file descriptors root opened. The sandbox's host user needs no access to the
 * host paths (rootDir may sit in a 0700 directory), and the mounts vanish with the sandbox.
 */
const VIEW_DIR = "/tmp";

/** The path bwrap uses for a view source. */
export function viewPath(sources: ViewSources, key: keyof ViewSources): string {
  const real = sources[key];
  if (real === undefined) throw new Error(`no ${key} in the sandbox view`);
  return isRoot ? path.join(VIEW_DIR, key) : real;
}

/*
 * The launcher (run by /bin/sh; arguments: uid, n cgroups..., n sources as "key path"...,
 * then the bwrap command). It joins the sandbox's cgroups, and when root: in its own
 * mount namespace (made by unshare), opens the sources, hides /tmp under a tmpfs, binds
 * the sources there, then becomes the sandbox's host user (no capabilities, no groups).
 * bwrap starts with an empty environment: the sandbox's PID 1 keeps bwrap's environment.
 */
const LAUNCHER = `set -e
uid=$1; shift
n=$1; shift
while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs"; shift; n=$((n-1)); done
n=$1; shift
if [ "$uid" = - ]; then shift $((2*n)); exec env -i "$@"; fi
fd=3; keys=""
while [ "$n" -gt 0 ]; do eval "exec $fd<\\"\\$2\\""; keys="$keys $1:$fd"; fd=$((fd+1)); shift 2; n=$((n-1)); done
mount -t tmpfs -o mode=0755,size=64k,nosuid,nodev cws-view ${VIEW_DIR}
for kv in $keys; do
  k=\${kv%:*}; f=\${kv#*:}
  if [ -d /proc/self/fd/$f/ ]; then mkdir ${VIEW_DIR}/$k; else : > ${VIEW_DIR}/$k; fi
  mount --no-canonicalize --rbind /proc/self/fd/$f ${VIEW_DIR}/$k
  eval "exec $f<&-"
done
exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all --bounding-set=-all -- env -i "$@"
`;

/** The command that starts `bwrap bwrapArgs` inside the cgroup dirs, with the view. */
export function launchCommand(
  bwrapArgs: string[],
  sources: ViewSources,
  cgroupDirs: string[] = [],
): { cmd: string; args: string[] } {
  const all: ViewSources = { ...sources, bwrap: bwrapPath() };
  const entries = Object.entries(all).filter(([, v]) => v !== undefined) as [string, string][];
  if (entries.length > 7) throw new Error("too many view sources"); // fds 3..9
  const tail = [
    isRoot ? String(SANDBOX_HOST_UID) : "-",
    String(cgroupDirs.length),
    ...cgroupDirs,
    String(entries.length),
    ...entries.flat(),
    viewPath(all, "bwrap"),
    ...bwrapArgs,
  ];
  const sh = ["/bin/sh", "-c", LAUNCHER, "cws-launch", ...tail];
  return isRoot
    ? { cmd: "unshare", args: ["--mount", "--propagation", "private", "--", ...sh] }
    : { cmd: sh[0], args: sh.slice(1) };
}

/** Environment of the launcher (bwrap itself gets none). */
export const LAUNCH_ENV = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" };

let cachedOk: string | undefined; // the bwrap path that passed the probe

/**
 * Whether bwrap is installed AND can create the namespaces a sandbox needs here (it runs
 * a throw-away sandbox once; a success is remembered).
 */
export function bubblewrapStatus(): { available: boolean; reason?: string } {
  // Sandboxes are Linux namespaces: on Windows and macOS there is no bubblewrap to look for.
  if (process.platform !== "linux")
    return {
      available: false,
      reason: `sandboxes need Linux (bubblewrap); this server runs on ${process.platform}`,
    };
  const bwrap = findBwrap();
  if (bwrap && bwrap === cachedOk) return { available: true };
  if (!bwrap) {
    return {
      available: false,
      reason: "bubblewrap (bwrap) is not installed; install the Debian package bubblewrap",
    };
  }
  const probe = launchCommand(
    [...isolationArgs("cws-probe"), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
    {},
  );
  const r = spawnSync(probe.cmd, probe.args, { encoding: "utf8", timeout: 15_000, env: LAUNCH_ENV });
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
  /** Host paths of what the sandbox binds (sandboxDir holds fs/). */
  sources: ViewSources & { sandboxDir: string; ctlDir: string; nodeBinary: string; ptyHelperFile: string };
  env: Record<string, string>;
  /** Command run inside the sandbox before the agent (e.g. prlimit and its options). */
  prefix: string[];
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
  const view = (k: keyof ViewSources) => viewPath(plan.sources, k);
  const ctl = view("ctlDir");
  const fsDir = path.join(view("sandboxDir"), "fs");
  const a = isolationArgs(plan.hostname);
  for (const d of SYSTEM_DIRS) {
    const host = `/${d}`;
    const st = lstatOrUndefined(host);
    if (!st) continue;
    if (st.isSymbolicLink()) a.push("--symlink", fs.readlinkSync(host), host);
    else if (st.isDirectory()) a.push("--ro-bind", host, host);
  }
  // Masks are an empty regular file (binds are nodev: /dev/null would not open).
  const empty = path.join(ctl, "empty");
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
    if (lstatOrUndefined(`/etc/${f}`)?.isFile()) a.push("--ro-bind", path.join(ctl, f), `/etc/${f}`);
  }
  a.push(
    "--proc",
    "/proc",
    // Read-only /proc/sys (values are per-namespace anyway; nothing to write there).
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
  );
  if (fs.existsSync("/proc/sysrq-trigger")) a.push("--ro-bind", empty, "/proc/sysrq-trigger");
  a.push("--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/run");
  for (const d of WRITABLE_DIRS) {
    if (d === "var/tmp") a.push("--dir", "/var");
    a.push("--bind", path.join(fsDir, d), `/${d}`);
  }
  a.push("--symlink", "../run", "/var/run", "--symlink", "../run/lock", "/var/lock");
  a.push(
    "--ro-bind",
    ctl,
    "/run/cws",
    "--ro-bind",
    view("nodeBinary"),
    "/.cws/node",
    "--ro-bind",
    view("ptyHelperFile"),
    "/.cws/pty_helper.py",
  );
  if (plan.sources.agentFile) a.push("--ro-bind", view("agentFile"), "/.cws/agent.mts");
  a.push(
    // The root of the sandbox (a tmpfs holding the mount points) becomes read-only:
    // anything written outside the writable dirs fails instead of vanishing.
    "--remount-ro",
    "/",
    "--chdir",
    "/workspace",
    "--clearenv",
  );
  for (const [k, v] of Object.entries(plan.env)) a.push("--setenv", k, v);
  a.push(
    ...plan.prefix,
    "/.cws/node",
    "--max-old-space-size=128",
    plan.sources.agentFile ? "/.cws/agent.mts" : "/run/cws/agent.mjs",
  );
  return a;
}
