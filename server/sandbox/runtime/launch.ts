// Launching and tearing down one sandbox: its files on the host (rootDir/<id>/fs, the
// control dir, the disk image), the agent, the bwrap command under its limits, and the
// kill-and-clean-up at the end. The control protocol it starts is in control.ts.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as nodeModule from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { LAUNCH_ENV, launchCommand, sandboxArgs, sandboxOwner, WRITABLE_DIRS } from "./bwrap.ts";
import {
  acceptStream,
  MAX_EXEC_OUTPUT_BYTES,
  MAX_FILE_BYTES,
  onEvent,
  onExit,
  onReply,
  Sandbox,
  type Reply,
  type SandboxSpec,
} from "./control.ts";
import { onLines } from "./streams.ts";
import { SandboxError } from "./errors.ts";
import { chownTree, copyTree } from "./fscopy.ts";
import {
  cgroupName,
  createCgroup,
  diskImagesUsable,
  mountDiskImage,
  removeCgroup,
  unmountDiskImage,
  type SandboxLimits,
} from "./limits.ts";
import { childrenOf, killNamespace, pidNamespace } from "./procfs.ts";

/** What a runtime launches its sandboxes with. */
export interface LaunchSettings {
  rootDir: string;
  limits: SandboxLimits;
  terminalBackend: "auto" | "python" | "script";
  desktopGeometry: string;
  startTimeoutMs: number;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const AGENT_FILE = path.join(HERE, "agent.mts");
const PTY_HELPER_FILE = path.join(HERE, "pty_helper.py");

let agentJs: string | null | undefined;
/**
 * The agent as plain JavaScript (types stripped once, on the host), so that the agent's
 * Node does not load its TypeScript stripper: about 20 MiB less memory per sandbox.
 * null when this Node cannot strip types (the agent then runs from agent.mts).
 */
function agentJavaScript(): string | null {
  if (agentJs !== undefined) return agentJs;
  const strip = (nodeModule as { stripTypeScriptTypes?: (code: string) => string }).stripTypeScriptTypes;
  if (!strip) return (agentJs = null);
  const emitWarning = process.emitWarning;
  // stripTypeScriptTypes() announces itself as experimental; that is noise here.
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (text.includes("stripTypeScriptTypes")) return;
    return (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    agentJs = strip(fs.readFileSync(AGENT_FILE, "utf8"));
  } catch {
    agentJs = null;
  } finally {
    process.emitWarning = emitWarning;
  }
  return agentJs;
}
const SOCKET_PATH_MAX = 100;
/** util-linux prlimit, run inside the sandbox to set its per-process limits. */
const PRLIMIT = ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => fs.existsSync(p)) ?? "prlimit";
export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const HOSTNAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The state of a new sandbox `id` under rootDir (nothing is created yet but a short control dir if needed). */
export function newSandbox(rootDir: string, id: string, spec: SandboxSpec): Sandbox {
  const dir = path.join(rootDir, id);
  if (fs.existsSync(dir))
    throw new SandboxError("INVALID_STATE", `files of a sandbox ${id} already exist in ${dir}`);
  let ctlDir = path.join(dir, "ctl");
  let ctlIsTemp = false;
  if (Buffer.byteLength(path.join(ctlDir, "s")) > SOCKET_PATH_MAX) {
    // unix socket paths are limited to 108 bytes: use a short private dir instead.
    const base = Buffer.byteLength(os.tmpdir()) < 60 ? os.tmpdir() : "/tmp";
    ctlDir = fs.mkdtempSync(path.join(base, "cws-"));
    ctlIsTemp = true;
  }
  return new Sandbox(id, { ...spec }, dir, ctlDir, ctlIsTemp);
}

/** Creates the sandbox's directories (or disk image) and writable dirs; populate fills them. */
export async function prepareFiles(
  sb: Sandbox,
  settings: LaunchSettings,
  populate: ((fsDir: string) => Promise<void>) | undefined,
): Promise<void> {
  const owner = sandboxOwner();
  await fsp.mkdir(settings.rootDir, { recursive: true, mode: 0o700 });
  // rootDir/<id> and its fs/ and ctl/ are root's; the sandbox's host user may only
  // pass through them (group), and owns the writable dirs.
  await fsp.mkdir(sb.dir, { mode: 0o710 });
  await fsp.mkdir(sb.ctlDir, { recursive: true, mode: 0o750 });
  if (diskImagesUsable()) {
    await mountDiskImage(path.join(sb.dir, "disk.img"), sb.fsDir, settings.limits.diskBytes);
    sb.disk = true;
  } else {
    await fsp.mkdir(sb.fsDir);
  }
  for (const p of [sb.dir, sb.ctlDir, sb.fsDir]) await fsp.chown(p, 0, owner.gid).catch(() => {});
  await fsp.chmod(sb.dir, 0o710);
  await fsp.chmod(sb.ctlDir, 0o750);
  await fsp.chmod(sb.fsDir, 0o710);
  for (const d of WRITABLE_DIRS) {
    const mode = d === "tmp" || d === "var/tmp" ? 0o1777 : d === "root" ? 0o700 : 0o755;
    const p = path.join(sb.fsDir, d);
    await fsp.mkdir(p, { recursive: true });
    await fsp.chmod(p, mode);
  }
  if (populate) await populate(sb.fsDir);
  for (const d of WRITABLE_DIRS) await chownTree(path.join(sb.fsDir, d), owner.uid, owner.gid);
}

export async function launch(sb: Sandbox, settings: LaunchSettings): Promise<void> {
  const hostname = sb.spec.hostname;
  await fsp.writeFile(
    path.join(sb.ctlDir, "hosts"),
    `127.0.0.1\tlocalhost\n127.0.1.1\t${hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
  );
  await fsp.writeFile(path.join(sb.ctlDir, "hostname"), hostname + "\n");
  await fsp.writeFile(path.join(sb.ctlDir, "empty"), "", { mode: 0o444 });
  const js = agentJavaScript();
  if (js !== null) await fsp.writeFile(path.join(sb.ctlDir, "agent.mjs"), js, { mode: 0o444 });

  const server = net.createServer((conn) => acceptStream(sb, conn));
  sb.server = server;
  await fsp.rm(sb.sockPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(sb.sockPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const owner = sandboxOwner();
  await fsp.chown(sb.sockPath, owner.uid, owner.gid).catch(() => {});
  await fsp.chmod(sb.sockPath, 0o600);

  sb.cgroup = createCgroup(cgroupName(settings.rootDir, sb.id), settings.limits);
  const agentConfig = {
    hostname,
    desktop: Boolean(sb.spec.desktop),
    maxFileBytes: MAX_FILE_BYTES,
    maxOutputBytes: MAX_EXEC_OUTPUT_BYTES,
    terminalBackend: settings.terminalBackend,
    desktopGeometry: settings.desktopGeometry,
    // Without a memory cgroup: RLIMIT_DATA on what exec and terminals start (the agent's
    // own Node needs more address space than a small limit allows).
    processPrefix: sb.cgroup
      ? undefined
      : [PRLIMIT, `--data=${settings.limits.memoryBytes}:${settings.limits.memoryBytes}`, "--"],
  };
  const lim = settings.limits;
  const prefix = [PRLIMIT, `--nproc=${lim.processes}:${lim.processes}`, "--core=0"];

  if (!sb.disk) prefix.push(`--fsize=${lim.diskBytes}:${lim.diskBytes}`);
  prefix.push("--");
  const sources = {
    sandboxDir: sb.dir,
    ctlDir: sb.ctlDir,
    nodeBinary: fs.realpathSync(process.execPath),
    ptyHelperFile: PTY_HELPER_FILE,
    agentFile: js === null ? AGENT_FILE : undefined,
  };
  const args = sandboxArgs({
    hostname,
    sources,
    prefix,
    env: {
      PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      HOME: "/root",
      USER: "root",
      LOGNAME: "root",
      HOSTNAME: hostname,
      LANG: "C.UTF-8",
      CWS_AGENT_CONFIG: JSON.stringify(agentConfig),
    },
  });
  const launch = launchCommand(args, sources, sb.cgroup?.dirs);
  const proc = spawn(launch.cmd, launch.args, { stdio: ["pipe", "pipe", "pipe"], env: LAUNCH_ENV });
  sb.proc = proc;
  proc.stdin!.on("error", () => {});
  proc.stderr!.on("data", (b: Buffer) => {
    sb.stderrTail = (sb.stderrTail + b.toString()).slice(-4000);
    if (process.env.CWS_SANDBOX_DEBUG) process.stderr.write(`[sandbox ${sb.id}] ${b.toString()}`);
  });

  let readyResolve!: () => void;
  let readyReject!: (e: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    readyResolve = res;
    readyReject = rej;
  });
  onLines(
    proc.stdout!,
    (line) => {
      let msg: Reply & { ev?: string };
      try {
        msg = JSON.parse(line) as Reply & { ev?: string };
      } catch {
        return;
      }
      if (typeof msg !== "object" || msg === null) return;
      if (msg.ev === "ready") readyResolve();
      else if (msg.ev) onEvent(sb, msg);
      else onReply(sb, msg);
    },
    () => {
      process.stderr.write(`sandbox ${sb.id}: oversized control message; stopping it\n`);
      proc.kill("SIGKILL");
    },
  );
  proc.on("error", (err) => readyReject(new SandboxError("UNAVAILABLE", `cannot run bwrap: ${err.message}`)));
  proc.on("exit", (code, signal) => {
    readyReject(
      new SandboxError(
        "UNAVAILABLE",
        `sandbox exited during start (${code ?? signal}): ${sb.stderrTail.trim().slice(-1000)}`,
      ),
    );
    onExit(sb);
  });

  const timer = setTimeout(
    () =>
      readyReject(
        new SandboxError("UNAVAILABLE", `sandbox did not start within ${settings.startTimeoutMs} ms`),
      ),
    settings.startTimeoutMs,
  );
  try {
    await ready;
  } finally {
    clearTimeout(timer);
  }
  // The PID namespace's init (bwrap's inner process) is the only child of the outer bwrap.
  const init = childrenOf(proc.pid!).find((pid) => {
    const ns = pidNamespace(pid);
    return ns !== undefined && ns !== pidNamespace(process.pid);
  });
  if (!init) throw new SandboxError("UNAVAILABLE", "cannot find the sandbox's init process");
  sb.initPid = init;
  sb.ns = pidNamespace(init);
  try {
    sb.nsHandle = fs.openSync(`/proc/${init}/ns/pid`, "r");
  } catch {
    // the init is already gone: the start fails on its own
  }
}

export async function teardown(sb: Sandbox): Promise<void> {
  sb.state = "destroying";
  const proc = sb.proc;
  if (sb.ns && sb.initPid && pidNamespace(sb.initPid) === sb.ns) {
    // Killing a PID namespace's init makes the kernel kill every process in it.
    try {
      process.kill(sb.initPid, "SIGKILL");
    } catch {
      // gone
    }
  }
  const running = () => proc && proc.exitCode === null && proc.signalCode === null;
  const exitedWithin = (ms: number) =>
    Promise.race([sb.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
  // The outer bwrap exits by itself once it has reaped the namespace's init; killing it
  // first would leave the init's zombie to the host's init.
  if (running() && !(sb.ns && (await exitedWithin(2000)))) {
    proc!.kill("SIGKILL");
    await exitedWithin(5000);
  } else if (!proc) {
    sb.markExited();
  }
  if (sb.ns) {
    const left = await killNamespace(sb.ns);
    if (left.length)
      process.stderr.write(`sandbox ${sb.id}: processes survived destroy: ${left.join(" ")}\n`);
  }
  if (sb.nsHandle !== undefined) {
    fs.closeSync(sb.nsHandle);
    sb.nsHandle = undefined;
  }
  for (const p of sb.pending.values())
    p.reject(new SandboxError("INVALID_STATE", `sandbox ${sb.id} destroyed`));
  sb.pending.clear();
  for (const t of [...sb.terminals.values(), ...sb.closing.values()]) t.sandboxGone(137);
  for (const token of [...sb.streams.keys()]) sb.streams.delete(token);
  sb.server?.close(); // stops listening; streams still open end with the sandbox's processes
  await removeCgroup(sb.cgroup);
  if (sb.disk || fs.existsSync(sb.fsDir)) unmountDiskImage(sb.fsDir);
  await fsp.rm(sb.dir, { recursive: true, force: true });
  if (sb.ctlIsTemp) await fsp.rm(sb.ctlDir, { recursive: true, force: true });
}

export async function copyWritable(srcFs: string, destFs: string): Promise<void> {
  for (const d of WRITABLE_DIRS) {
    const src = path.join(srcFs, d);
    if (fs.existsSync(src)) await copyTree(src, path.join(destFs, d));
  }
}

export async function restoreSnapshot(snapshotDir: string, fsDir: string): Promise<void> {
  const src = path.resolve(snapshotDir);
  let st: fs.Stats;
  try {
    st = await fsp.lstat(src);
  } catch {
    throw new SandboxError("NOT_FOUND", `no snapshot at ${src}`);
  }
  if (!st.isDirectory()) throw new SandboxError("NOT_FOUND", `not a snapshot directory: ${src}`);
  for (const d of WRITABLE_DIRS) {
    const from = path.join(src, d);
    const fst = await fsp.lstat(from).catch(() => undefined);
    if (fst?.isDirectory()) await copyTree(from, path.join(fsDir, d));
  }
}
