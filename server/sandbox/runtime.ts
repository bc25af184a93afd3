// Runtime of SANDBOX workloads: real isolated Linux environments made with bubblewrap.
//
// Design (see also agent.mts, bwrap.ts, procfs.ts, fscopy.ts, terminal.ts):
// - One long-lived `bwrap` per sandbox, with its own PID, network (loopback only), IPC,
//   UTS (hostname) and mount namespaces. Host system dirs (/usr, /bin, /lib*, /etc, ...)
//   are bind-mounted read-only; the writable dirs (/root, /home, /tmp, /workspace,
//   /var/tmp) are bind-mounted from rootDir/<id>/fs/. Processes are uid 0 of a user
//   namespace (an unprivileged uid on the host), without capabilities or nested user
//   namespaces, under process, memory and disk limits (limits.ts); bwrap
//   --die-with-parent ties the sandbox to the server process.
// - Inside runs a small agent (agent.mts, the host's Node binary bind-mounted read-only)
//   as PID 2 (bwrap's init, PID 1, reaps orphans). Control messages are newline-delimited
//   JSON over bwrap's stdin/stdout; bulk byte streams (files, terminals, RFB) use a unix
//   socket the host listens on in a per-sandbox control dir, bind-mounted read-only at
//   /run/cws, each stream introduced by a random one-time token. The sandbox never gets a
//   writable path the host later opens, so it cannot redirect the host with a symlink.
// - exec and terminals are spawned by the agent, hence share the sandbox's namespaces;
//   background processes left by exec keep running until the sandbox is destroyed.
// - File I/O is done by the agent inside the sandbox's mount namespace, where the host's
//   files do not exist: `..`, absolute or relative symlinks all resolve within the
//   sandbox's own view (system dirs read-only, writes there fail with INVALID_PATH).
// - freeze = SIGSTOP of every process of the sandbox's PID namespace (parents first),
//   thaw = SIGCONT (children first): the same processes resume.
// - fork/snapshot copy the writable dirs on the host while the source sandbox's
//   processes are stopped (briefly, for the duration of the copy), so the copy is
//   consistent and the tree cannot change under it. Symlinks are copied verbatim, never
//   followed; sockets, FIFOs and devices are skipped.

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as nodeModule from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

import {
  bubblewrapStatus,
  LAUNCH_ENV,
  launchCommand,
  sandboxArgs,
  sandboxOwner,
  visibleInSandboxes,
  WRITABLE_DIRS,
} from "./bwrap.ts";
import { SandboxError } from "./errors.ts";
import { chownTree, copyTree } from "./fscopy.ts";
import {
  cgroupName,
  createCgroup,
  removeLeftoverCgroup,
  diskImagesUsable,
  mountDiskImage,
  removeCgroup,
  resolveLimits,
  unmountDiskImage,
  type SandboxCgroup,
  type SandboxLimits,
} from "./limits.ts";
import {
  childrenOf,
  continueNamespace,
  killNamespace,
  pidNamespace,
  stopNamespace,
  type FrozenSet,
} from "./procfs.ts";
import { Terminal, type TerminalInfo, type TerminalSession } from "./terminal.ts";

export { bubblewrapStatus } from "./bwrap.ts";
export { SandboxError, type SandboxErrorCode } from "./errors.ts";
export type { TerminalInfo, TerminalSession } from "./terminal.ts";
export { DEFAULT_LIMITS, type SandboxLimits } from "./limits.ts";

/** Largest file readFile/writeFile accept (TOO_LARGE beyond). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
/**
 * exec captures at most this many bytes of stdout and of stderr each (4 MiB); the rest
 * of the output is read and discarded (the command is not blocked).
 */
export const MAX_EXEC_OUTPUT_BYTES = 4 * 1024 * 1024;
/** exec's exit code when the timeout killed the command (as coreutils `timeout`). */
export const EXEC_TIMEOUT_CODE = 124;
/** TCP port of the RFB server inside the sandbox's own network namespace (loopback only). */
export const DESKTOP_RFB_PORT = 5900;

export interface SandboxSpec {
  hostname: string;
  desktop: boolean;
  /** A directory made by snapshot(); its files are copied into the new sandbox. */
  fromSnapshot?: string;
}

export interface SandboxRuntimeOptions {
  rootDir: string;
  /** Live terminals per sandbox (default 8). */
  maxTerminals?: number;
  /** PTY provider inside the sandbox: python3's pty module (default when present) or util-linux script. */
  terminalBackend?: "auto" | "python" | "script";
  /** Desktop size, WIDTHxHEIGHT (default 1280x800). */
  desktopGeometry?: string;
  /** How long start() waits for the sandbox to come up (default 30 s). */
  startTimeoutMs?: number;
  /** Processes, memory and disk per sandbox (default DEFAULT_LIMITS). */
  limits?: Partial<SandboxLimits>;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
  timedOut: boolean;
}

type State = "starting" | "running" | "frozen" | "stopped" | "destroying";

interface Reply {
  id: number;
  ok: boolean;
  code?: string;
  message?: string;
  [k: string]: unknown;
}

interface Pending {
  resolve(r: Reply): void;
  reject(e: Error): void;
}

interface ExpectedStream {
  token: string;
  stream: Promise<net.Socket>;
  cancel(): void;
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
const TOKEN_BYTES = 16; // 32 hex digits + "\n" on the wire
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const HOSTNAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/**
 * Longest control message accepted from a sandbox (an exec reply carries up to 2 x 4 MiB
 * of output in base64). Everything the agent says is untrusted: root in the sandbox can
 * ptrace the agent, so the host bounds and validates it all.
 */
const MAX_CONTROL_LINE = 32 * 1024 * 1024;
/** Stream connections that have not presented a valid token yet, per sandbox. */
const MAX_PENDING_CONNECTIONS = 64;

class Sandbox {
  id: string;
  spec: SandboxSpec;
  dir: string;
  fsDir: string;
  ctlDir: string;
  ctlIsTemp: boolean;
  state: State = "starting";
  proc: ChildProcess | undefined;
  server: net.Server | undefined;
  initPid = 0;
  ns: string | undefined;
  nextReq = 1;
  pending = new Map<number, Pending>();
  streams = new Map<string, (s: net.Socket) => void>();
  terminals = new Map<string, Terminal>();
  /** Closed terminals whose shell has not exited yet (still receive their exit event). */
  closing = new Map<string, Terminal>();
  desktopListening = false;
  desktopWaiters = new Set<() => void>();
  frozen: FrozenSet | undefined;
  /** Set while the runtime itself holds the processes stopped (fork/snapshot copy). */
  pause: Promise<void> | undefined;
  lastActivity = Date.now();
  unauthenticated = 0;
  lock: Promise<unknown> = Promise.resolve();
  stderrTail = "";
  exited: Promise<void>;
  markExited!: () => void;
  starting: Promise<void> | undefined;
  cgroup: SandboxCgroup | undefined;
  /** Whether fsDir is the mount point of the sandbox's own disk image. */
  disk = false;

  constructor(id: string, spec: SandboxSpec, dir: string, ctlDir: string, ctlIsTemp: boolean) {
    this.id = id;
    this.spec = spec;
    this.dir = dir;
    this.fsDir = path.join(dir, "fs");
    this.ctlDir = ctlDir;
    this.ctlIsTemp = ctlIsTemp;
    this.exited = new Promise((r) => (this.markExited = r));
  }

  get sockPath(): string {
    return path.join(this.ctlDir, "s");
  }

  touch(): void {
    this.lastActivity = Date.now();
  }
}

function checkGuestPath(p: string): string {
  if (typeof p !== "string" || !p.startsWith("/")) {
    throw new SandboxError("INVALID_PATH", `guest path must be absolute: ${String(p)}`);
  }
  if (p.includes("\0")) throw new SandboxError("INVALID_PATH", "guest path contains a NUL byte");
  if (Buffer.byteLength(p) > 4096) throw new SandboxError("INVALID_PATH", "guest path too long");
  return path.posix.resolve(p);
}

function agentError(r: Reply): SandboxError {
  const codes = [
    "NOT_FOUND",
    "INVALID_PATH",
    "TOO_LARGE",
    "INVALID_STATE",
    "UNAVAILABLE",
    "NO_DESKTOP",
    "LIMIT",
  ];
  const code = codes.includes(String(r.code)) ? (r.code as SandboxError["code"]) : "UNAVAILABLE";
  return new SandboxError(code, r.message ?? "sandbox agent error");
}

export class SandboxRuntime {
  private rootDir: string;
  private maxTerminals: number;
  private terminalBackend: "auto" | "python" | "script";
  private desktopGeometry: string;
  private startTimeoutMs: number;
  readonly limits: SandboxLimits;
  private boxes = new Map<string, Sandbox>();
  private closed = false;

  constructor(opts: SandboxRuntimeOptions) {
    this.rootDir = path.resolve(opts.rootDir);
    // The sandboxes' files must not be under a host dir that every sandbox sees.
    if (visibleInSandboxes(this.rootDir)) {
      throw new TypeError(`rootDir ${this.rootDir} is inside a system dir visible in sandboxes`);
    }
    this.maxTerminals = opts.maxTerminals ?? 8;
    this.terminalBackend = opts.terminalBackend ?? "auto";
    this.desktopGeometry = opts.desktopGeometry ?? "1280x800";
    this.startTimeoutMs = opts.startTimeoutMs ?? 30_000;
    this.limits = resolveLimits(opts.limits);
  }

  // ---------------------------------------------------------------------------------
  // Lifecycle

  async start(id: string, spec: SandboxSpec): Promise<void> {
    const from = spec.fromSnapshot;
    await this.startWith(id, spec, from ? (fsDir) => restoreSnapshot(from, fsDir) : undefined);
  }

  async fork(parentId: string, childId: string, spec: SandboxSpec): Promise<void> {
    const parent = this.get(parentId);
    await this.startWith(childId, { ...spec, fromSnapshot: undefined }, (fsDir) =>
      this.serialized(parent, () => this.withStopped(parent, () => copyWritable(parent.fsDir, fsDir))),
    );
  }

  async snapshot(id: string, destDir: string): Promise<void> {
    const sb = this.get(id);
    const dest = path.resolve(destDir);
    let entries: string[] = [];
    try {
      entries = await fsp.readdir(dest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    if (entries.length) throw new SandboxError("INVALID_STATE", `snapshot destination is not empty: ${dest}`);
    await fsp.mkdir(dest, { recursive: true, mode: 0o700 });
    try {
      await this.serialized(sb, () => this.withStopped(sb, () => copyWritable(sb.fsDir, dest)));
      const manifest = {
        format: 1,
        source: id,
        hostname: sb.spec.hostname,
        created_at: new Date().toISOString(),
      };
      await fsp.writeFile(path.join(dest, "cws-snapshot.json"), JSON.stringify(manifest) + "\n");
    } catch (err) {
      await fsp.rm(dest, { recursive: true, force: true });
      throw err;
    }
  }

  async freeze(id: string): Promise<void> {
    const sb = this.get(id);
    await this.serialized(sb, async () => {
      if (sb.state === "frozen") return;
      if (sb.state !== "running") throw new SandboxError("INVALID_STATE", `sandbox ${id} is ${sb.state}`);
      sb.state = "frozen";
      try {
        sb.frozen = await stopNamespace(sb.ns!);
      } catch (err) {
        continueNamespace(sb.ns!, { preStopped: new Set() });
        sb.state = "running";
        throw new SandboxError("UNAVAILABLE", String(err));
      }
    });
  }

  async thaw(id: string): Promise<void> {
    const sb = this.get(id);
    await this.serialized(sb, async () => {
      if (sb.state === "running") return;
      if (sb.state !== "frozen") throw new SandboxError("INVALID_STATE", `sandbox ${id} is ${sb.state}`);
      continueNamespace(sb.ns!, sb.frozen ?? { preStopped: new Set() });
      sb.frozen = undefined;
      sb.state = "running";
    });
  }

  async destroy(id: string): Promise<void> {
    const sb = this.boxes.get(id);
    if (!sb) {
      const dir = path.join(this.rootDir, id);
      if (ID_RE.test(id) && fs.existsSync(dir)) {
        unmountDiskImage(path.join(dir, "fs"));
        await removeLeftoverCgroup(cgroupName(this.rootDir, id));
        await fsp.rm(dir, { recursive: true, force: true });
        return;
      }
      throw new SandboxError("NOT_FOUND", `no sandbox ${id}`);
    }
    await sb.starting?.catch(() => {});
    await this.serialized(sb, () => this.teardown(sb));
    if (this.boxes.get(id) === sb) this.boxes.delete(id);
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.boxes.keys()].map((id) => this.destroy(id).catch(() => {})));
  }

  lastActivity(id: string): number {
    return this.get(id).lastActivity;
  }

  /** Current state of a sandbox (for diagnostics): starting, running, frozen, stopped or destroying. */
  state(id: string): State {
    return this.get(id).state;
  }

  // ---------------------------------------------------------------------------------
  // exec and files

  async exec(id: string, cmd: string, timeoutSec: number): Promise<ExecResult> {
    const sb = this.get(id);
    this.checkRunning(sb);
    if (typeof cmd !== "string" || cmd.includes("\0"))
      throw new TypeError("cmd must be a string without NUL bytes");
    if (!(timeoutSec > 0) || !Number.isFinite(timeoutSec))
      throw new TypeError("timeoutSec must be a positive number");
    sb.touch();
    const timeoutMs = Math.max(1, Math.round(timeoutSec * 1000));
    const r = await this.request(sb, { op: "exec", cmd: String(cmd), timeoutMs }, timeoutMs + 30_000);
    sb.touch();
    return {
      stdout: Buffer.from(String(r.stdout), "base64").toString("utf8"),
      stderr: Buffer.from(String(r.stderr), "base64").toString("utf8"),
      code: Number(r.code),
      timedOut: Boolean(r.timedOut),
    };
  }

  /**
   * Opens a file of the sandbox for reading: its size, and a stream of exactly that many
   * bytes (it errors if the sandbox sends fewer; extra bytes are dropped). `done` settles
   * when the sandbox has confirmed the read. Memory stays at a few chunks however large
   * the file is (the stream is paused while its reader is).
   */
  async openFile(id: string, guestPath: string): Promise<FileStream> {
    const sb = this.get(id);
    const p = checkGuestPath(guestPath);
    this.checkRunning(sb);
    sb.touch();
    const s = this.expectStream(sb);
    const reply = this.request(sb, { op: "readFile", path: p, token: s.token });
    reply.catch(() => {});
    const header = s.stream.then((sock) => readSizeLine(sock));
    header.catch(() => {});
    try {
      // The agent answers an error before sending anything; a file comes with its size first.
      const first = await Promise.race([header, reply.then(() => header)]);
      const { size, sock } = await this.deadline(sb, Promise.resolve(first), 30_000, "file stream");
      if (!(Number.isSafeInteger(size) && size >= 0 && size <= MAX_FILE_BYTES)) {
        sock.destroy();
        throw new SandboxError("UNAVAILABLE", "the sandbox announced an invalid file size");
      }
      const stream = new BoundedStream(sock, size);
      const done = reply.then((r) => {
        if (Number(r.size) !== size) throw new SandboxError("UNAVAILABLE", "file stream truncated");
      });
      done.catch(() => {});
      return { size, stream, done };
    } catch (err) {
      s.cancel();
      throw err;
    } finally {
      sb.touch();
    }
  }

  async readFile(id: string, guestPath: string): Promise<Buffer> {
    const f = await this.openFile(id, guestPath);
    const out = Buffer.allocUnsafe(f.size);
    let n = 0;
    for await (const chunk of f.stream as AsyncIterable<Buffer>) {
      chunk.copy(out, n);
      n += chunk.length;
    }
    await f.done;
    if (n !== f.size) throw new SandboxError("UNAVAILABLE", "file stream truncated");
    return out;
  }

  async writeFile(id: string, guestPath: string, data: Buffer): Promise<void> {
    const sb = this.get(id);
    const p = checkGuestPath(guestPath);
    if (data.length > MAX_FILE_BYTES) {
      throw new SandboxError(
        "TOO_LARGE",
        `${data.length} bytes exceeds the limit of ${MAX_FILE_BYTES} bytes`,
      );
    }
    this.checkRunning(sb);
    sb.touch();
    const s = this.expectStream(sb);
    s.stream.then(
      (sock) => sock.end(data),
      () => {},
    );
    try {
      await this.request(sb, { op: "writeFile", path: p, token: s.token, size: data.length });
    } finally {
      s.cancel();
      sb.touch();
    }
  }

  async installSshKey(id: string, publicKey: string): Promise<void> {
    await this.sshKey(id, "add", publicKey);
  }

  async removeSshKey(id: string, publicKey: string): Promise<void> {
    await this.sshKey(id, "remove", publicKey);
  }

  private async sshKey(id: string, action: "add" | "remove", publicKey: string): Promise<void> {
    const sb = this.get(id);
    const key = String(publicKey).trim();
    if (!key || /[\r\n\0]/.test(key)) throw new TypeError("publicKey must be one non-empty line");
    this.checkRunning(sb);
    sb.touch();
    await this.request(sb, { op: "sshKey", action, key });
  }

  // ---------------------------------------------------------------------------------
  // Terminals

  openTerminal(id: string, cols: number, rows: number): TerminalSession {
    const sb = this.get(id);
    this.checkRunning(sb);
    const live = [...sb.terminals.values()].filter((t) => !t.exited).length;
    if (live >= this.maxTerminals) {
      throw new SandboxError(
        "LIMIT",
        `sandbox ${id} already has ${live} live terminals (max ${this.maxTerminals})`,
      );
    }
    const termId = "term-" + randomBytes(8).toString("hex");
    const term = new Terminal(termId, {
      checkUsable: () => this.checkRunning(sb),
      resize: async (c, r) => {
        await this.request(sb, { op: "termResize", term: termId, cols: c, rows: r });
      },
      kill: () => this.notify(sb, { op: "termKill", term: termId }),
      touch: () => sb.touch(),
    });
    sb.terminals.set(termId, term);
    sb.touch();
    const s = this.expectStream(sb);
    void (async () => {
      try {
        const [reply, sock] = await Promise.all([
          this.request(sb, { op: "termOpen", term: termId, token: s.token, cols, rows }),
          this.deadline(sb, s.stream, 30_000, "terminal stream"),
        ]);
        term.started(Number(reply.pid), sock);
      } catch (err) {
        s.cancel();
        term.failed(err as Error);
      }
    })();
    return term;
  }

  /** openTerminal, resolved once the shell runs (its pid is known). */
  async openTerminalReady(id: string, cols: number, rows: number): Promise<TerminalSession> {
    const t = this.openTerminal(id, cols, rows);
    await t.ready;
    return t;
  }

  listTerminals(id: string): TerminalInfo[] {
    return [...this.get(id).terminals.values()].map((t) => t.info());
  }

  getTerminal(id: string, terminalId: string): TerminalSession | undefined {
    return this.get(id).terminals.get(terminalId);
  }

  closeTerminal(id: string, terminalId: string): void {
    const sb = this.get(id);
    const t = sb.terminals.get(terminalId);
    if (!t) throw new SandboxError("NOT_FOUND", `no terminal ${terminalId} in sandbox ${id}`);
    sb.terminals.delete(terminalId);
    if (!t.exited) {
      sb.closing.set(terminalId, t);
      t.onExit(() => sb.closing.delete(terminalId));
      t.kill();
    }
  }

  // ---------------------------------------------------------------------------------
  // Desktop

  desktop(id: string): { available: false } | { available: true; port: number; listening: boolean } {
    const sb = this.get(id);
    if (!sb.spec.desktop) return { available: false };
    return {
      available: true,
      port: DESKTOP_RFB_PORT,
      listening: sb.desktopListening && sb.state === "running",
    };
  }

  async connectDesktop(id: string, waitMs = 20_000): Promise<net.Socket> {
    const sb = this.get(id);
    if (!sb.spec.desktop) throw new SandboxError("NO_DESKTOP", `sandbox ${id} has no desktop`);
    this.checkRunning(sb);
    if (!sb.desktopListening) {
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          sb.desktopWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(() => {
          sb.desktopWaiters.delete(done);
          reject(new SandboxError("UNAVAILABLE", "the desktop server is not listening"));
        }, waitMs);
        sb.desktopWaiters.add(done);
      });
      this.checkRunning(sb);
    }
    sb.touch();
    const s = this.expectStream(sb);
    try {
      const [, sock] = await Promise.all([
        this.request(sb, { op: "desktopConnect", token: s.token }),
        this.deadline(sb, s.stream, 30_000, "desktop stream"),
      ]);
      return sock;
    } catch (err) {
      s.cancel();
      throw err;
    }
  }

  // ---------------------------------------------------------------------------------
  // Internals

  private get(id: string): Sandbox {
    const sb = this.boxes.get(id);
    if (!sb) throw new SandboxError("NOT_FOUND", `no sandbox ${id}`);
    return sb;
  }

  private checkRunning(sb: Sandbox): void {
    if (sb.state === "running") return;
    if (sb.state === "frozen") throw new SandboxError("INVALID_STATE", `sandbox ${sb.id} is frozen`);
    throw new SandboxError("INVALID_STATE", `sandbox ${sb.id} is not running (${sb.state})`);
  }

  /** Runs lifecycle operations of one sandbox one at a time. */
  private serialized<T>(sb: Sandbox, fn: () => Promise<T>): Promise<T> {
    const run = sb.lock.then(fn, fn);
    sb.lock = run.catch(() => {});
    return run;
  }

  /** Runs fn with every process of the sandbox stopped (already-frozen sandboxes stay frozen). */
  private async withStopped<T>(sb: Sandbox, fn: () => Promise<T>): Promise<T> {
    if (sb.state === "frozen") return fn();
    if (sb.state !== "running") throw new SandboxError("INVALID_STATE", `sandbox ${sb.id} is ${sb.state}`);
    let release!: () => void;
    sb.pause = new Promise((r) => (release = r));
    try {
      const frozen = await stopNamespace(sb.ns!);
      try {
        return await fn();
      } finally {
        continueNamespace(sb.ns!, frozen);
      }
    } finally {
      sb.pause = undefined;
      release();
    }
  }

  private async startWith(
    id: string,
    spec: SandboxSpec,
    populate: ((fsDir: string) => Promise<void>) | undefined,
  ): Promise<void> {
    if (typeof id !== "string" || !ID_RE.test(id))
      throw new SandboxError("INVALID_PATH", `invalid sandbox id: ${id}`);
    if (typeof spec?.hostname !== "string" || !HOSTNAME_RE.test(spec.hostname)) {
      throw new TypeError(`invalid hostname: ${String(spec?.hostname)}`);
    }
    if (this.closed) throw new SandboxError("INVALID_STATE", "the sandbox runtime is shut down");
    if (this.boxes.has(id)) throw new SandboxError("INVALID_STATE", `sandbox ${id} already exists`);
    const status = bubblewrapStatus();
    if (!status.available)
      throw new SandboxError("UNAVAILABLE", status.reason ?? "bubblewrap is not available");

    const dir = path.join(this.rootDir, id);
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
    const sb = new Sandbox(id, { ...spec }, dir, ctlDir, ctlIsTemp);
    this.boxes.set(id, sb);
    sb.starting = (async () => {
      try {
        const owner = sandboxOwner();
        await fsp.mkdir(this.rootDir, { recursive: true, mode: 0o700 });
        // rootDir/<id> and its fs/ and ctl/ are root's; the sandbox's host user may only
        // pass through them (group), and owns the writable dirs.
        await fsp.mkdir(dir, { mode: 0o710 });
        await fsp.mkdir(sb.ctlDir, { recursive: true, mode: 0o750 });
        if (diskImagesUsable()) {
          await mountDiskImage(path.join(dir, "disk.img"), sb.fsDir, this.limits.diskBytes);
          sb.disk = true;
        } else {
          await fsp.mkdir(sb.fsDir);
        }
        for (const p of [dir, sb.ctlDir, sb.fsDir]) await fsp.chown(p, 0, owner.gid).catch(() => {});
        await fsp.chmod(dir, 0o710);
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
        await this.launch(sb);
        sb.state = "running";
        sb.touch();
      } catch (err) {
        await this.teardown(sb);
        if (this.boxes.get(id) === sb) this.boxes.delete(id);
        throw err;
      }
    })();
    await sb.starting;
  }

  private async launch(sb: Sandbox): Promise<void> {
    const hostname = sb.spec.hostname;
    await fsp.writeFile(
      path.join(sb.ctlDir, "hosts"),
      `127.0.0.1\tlocalhost\n127.0.1.1\t${hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
    );
    await fsp.writeFile(path.join(sb.ctlDir, "hostname"), hostname + "\n");
    await fsp.writeFile(path.join(sb.ctlDir, "empty"), "", { mode: 0o444 });
    const js = agentJavaScript();
    if (js !== null) await fsp.writeFile(path.join(sb.ctlDir, "agent.mjs"), js, { mode: 0o444 });

    const server = net.createServer((conn) => this.acceptStream(sb, conn));
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

    sb.cgroup = createCgroup(cgroupName(this.rootDir, sb.id), this.limits);
    const agentConfig = {
      hostname,
      desktop: Boolean(sb.spec.desktop),
      maxFileBytes: MAX_FILE_BYTES,
      maxOutputBytes: MAX_EXEC_OUTPUT_BYTES,
      terminalBackend: this.terminalBackend,
      desktopGeometry: this.desktopGeometry,
      // Without a memory cgroup: RLIMIT_DATA on what exec and terminals start (the agent's
      // own Node needs more address space than a small limit allows).
      processPrefix: sb.cgroup
        ? undefined
        : [PRLIMIT, `--data=${this.limits.memoryBytes}:${this.limits.memoryBytes}`, "--"],
    };
    const lim = this.limits;
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
        else if (msg.ev) this.onEvent(sb, msg);
        else this.onReply(sb, msg);
      },
      () => {
        process.stderr.write(`sandbox ${sb.id}: oversized control message; stopping it\n`);
        proc.kill("SIGKILL");
      },
    );
    proc.on("error", (err) =>
      readyReject(new SandboxError("UNAVAILABLE", `cannot run bwrap: ${err.message}`)),
    );
    proc.on("exit", (code, signal) => {
      readyReject(
        new SandboxError(
          "UNAVAILABLE",
          `sandbox exited during start (${code ?? signal}): ${sb.stderrTail.trim().slice(-1000)}`,
        ),
      );
      this.onExit(sb);
    });

    const timer = setTimeout(
      () =>
        readyReject(
          new SandboxError("UNAVAILABLE", `sandbox did not start within ${this.startTimeoutMs} ms`),
        ),
      this.startTimeoutMs,
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
  }

  private acceptStream(sb: Sandbox, conn: net.Socket): void {
    conn.on("error", () => {});
    if (sb.unauthenticated >= MAX_PENDING_CONNECTIONS) {
      conn.destroy();
      return;
    }
    sb.unauthenticated++;
    let counted = true;
    const uncount = () => {
      if (counted) sb.unauthenticated--;
      counted = false;
    };
    conn.once("close", uncount);
    const timer = setTimeout(() => conn.destroy(), 10_000);
    const want = TOKEN_BYTES * 2 + 1;
    const onReadable = () => {
      const head = conn.read(want) as Buffer | null;
      if (head === null) return;
      conn.off("readable", onReadable);
      clearTimeout(timer);
      uncount();
      const token = head.toString("latin1", 0, want - 1);
      const handler = sb.streams.get(token);
      if (head.length !== want || head[want - 1] !== 10 || !handler) {
        conn.destroy();
        return;
      }
      sb.streams.delete(token);
      handler(conn);
    };
    conn.on("readable", onReadable);
  }

  private expectStream(sb: Sandbox): ExpectedStream {
    const token = randomBytes(TOKEN_BYTES).toString("hex");
    let reject!: (e: Error) => void;
    const stream = new Promise<net.Socket>((res, rej) => {
      reject = rej;
      sb.streams.set(token, res);
    });
    stream.catch(() => {});
    return {
      token,
      stream,
      cancel: () => {
        if (sb.streams.delete(token)) reject(new SandboxError("UNAVAILABLE", "stream cancelled"));
      },
    };
  }

  private onReply(sb: Sandbox, msg: Reply): void {
    const p = sb.pending.get(msg.id);
    if (!p) return;
    sb.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg);
    else p.reject(agentError(msg));
  }

  private onEvent(sb: Sandbox, msg: Reply & { ev?: string }): void {
    if (msg.ev === "termExit") {
      const term = String(msg.term);
      (sb.terminals.get(term) ?? sb.closing.get(term))?.exitReported(Number(msg.code));
    } else if (msg.ev === "desktop") {
      sb.desktopListening = Boolean(msg.listening);
      if (sb.desktopListening) for (const w of [...sb.desktopWaiters]) w();
    }
  }

  private onExit(sb: Sandbox): void {
    if (sb.state !== "destroying") sb.state = "stopped";
    sb.desktopListening = false;
    for (const p of sb.pending.values())
      p.reject(new SandboxError("INVALID_STATE", `sandbox ${sb.id} stopped`));
    sb.pending.clear();
    for (const t of [...sb.terminals.values(), ...sb.closing.values()]) t.sandboxGone(137);
    sb.markExited();
  }

  /** Sends a request to the agent; waits while the runtime holds the sandbox stopped for a copy. */
  private async request(sb: Sandbox, msg: Record<string, unknown>, timeoutMs = 60_000): Promise<Reply> {
    while (sb.pause) await sb.pause;
    this.checkRunning(sb);
    const id = sb.nextReq++;
    return new Promise<Reply>((resolve, reject) => {
      let timer: NodeJS.Timeout;
      const arm = () => {
        timer = setTimeout(() => {
          // Time spent frozen does not count.
          if (sb.state === "frozen" || sb.pause) return arm();
          sb.pending.delete(id);
          reject(new SandboxError("UNAVAILABLE", `sandbox ${sb.id} did not answer (${String(msg.op)})`));
        }, timeoutMs);
      };
      arm();
      sb.pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      sb.proc!.stdin!.write(JSON.stringify({ ...msg, id }) + "\n");
    });
  }

  /** Rejects with UNAVAILABLE if p has not settled after ms of the sandbox running (frozen time does not count). */
  private deadline<T>(sb: Sandbox, p: Promise<T>, ms: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout;
      const arm = () => {
        timer = setTimeout(() => {
          if (sb.state === "frozen" || sb.pause) return arm();
          reject(new SandboxError("UNAVAILABLE", `sandbox ${sb.id}: ${what} did not complete`));
        }, ms);
      };
      arm();
      p.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e as Error);
        },
      );
    });
  }

  /** Fire-and-forget request (terminal resize/kill); delivered even while frozen (queued). */
  private notify(sb: Sandbox, msg: Record<string, unknown>): void {
    if (!sb.proc || sb.state === "stopped" || sb.state === "destroying") return;
    sb.proc.stdin!.write(JSON.stringify({ ...msg, id: 0 }) + "\n");
  }

  private async teardown(sb: Sandbox): Promise<void> {
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
}

export interface FileStream {
  size: number;
  stream: Readable;
  done: Promise<void>;
}

/** Reads the "<size>\n" a file stream starts with; the rest stays in the socket. */
function readSizeLine(sock: net.Socket): Promise<{ size: number; sock: net.Socket }> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const fail = () => {
      cleanup();
      sock.destroy();
      reject(new SandboxError("UNAVAILABLE", "file stream interrupted"));
    };
    const onReadable = () => {
      for (let b = sock.read() as Buffer | null; b !== null; b = sock.read() as Buffer | null) {
        head = Buffer.concat([head, b]);
        const nl = head.indexOf(10);
        if (nl === -1 && head.length > 24) return fail();
        if (nl === -1) continue;
        cleanup();
        const rest = head.subarray(nl + 1);
        if (rest.length) sock.unshift(rest);
        const text = head.toString("latin1", 0, nl);
        resolve({ size: /^\d{1,15}$/.test(text) ? Number(text) : -1, sock });
        return;
      }
    };
    const cleanup = () => {
      sock.off("readable", onReadable);
      sock.off("end", fail);
      sock.off("close", fail);
    };
    sock.on("readable", onReadable);
    sock.once("end", fail);
    sock.once("close", fail);
  });
}

/** Passes on exactly `size` bytes of a socket; errors if it ends early. */
class BoundedStream extends Readable {
  private left: number;
  private readonly sock: net.Socket;

  constructor(sock: net.Socket, size: number) {
    super();
    this.sock = sock;
    this.left = size;
    if (size === 0) {
      this.push(null);
      sock.destroy();
      return;
    }
    sock.on("data", (b: Buffer) => {
      if (this.left <= 0) return;
      const part = b.length > this.left ? b.subarray(0, this.left) : b;
      this.left -= part.length;
      if (!this.push(part)) sock.pause();
      if (this.left === 0) {
        this.push(null);
        sock.destroy();
      }
    });
    const early = () => {
      if (this.left > 0) this.destroy(new SandboxError("UNAVAILABLE", "file stream interrupted"));
    };
    sock.on("end", early);
    sock.on("close", early);
  }

  override _read(): void {
    this.sock.resume();
  }

  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    this.sock.destroy();
    cb(err);
  }
}

/** Calls onLine for each "\n"-terminated line of a stream; onOverflow if a line gets too long. */
function onLines(input: NodeJS.ReadableStream, onLine: (line: string) => void, onOverflow: () => void): void {
  let parts: Buffer[] = [];
  let size = 0;
  input.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, nl));
      const line = Buffer.concat(parts).toString("utf8");
      parts = [];
      size = 0;
      start = nl + 1;
      onLine(line);
    }
    if (start < chunk.length) {
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > MAX_CONTROL_LINE) {
        parts = [];
        size = 0;
        onOverflow();
      }
    }
  });
}

async function copyWritable(srcFs: string, destFs: string): Promise<void> {
  for (const d of WRITABLE_DIRS) {
    const src = path.join(srcFs, d);
    if (fs.existsSync(src)) await copyTree(src, path.join(destFs, d));
  }
}

async function restoreSnapshot(snapshotDir: string, fsDir: string): Promise<void> {
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
