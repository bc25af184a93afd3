// Runtime of SANDBOX workloads: real isolated Linux environments made with bubblewrap.
//
// This file holds the runtime's operations, one method per operation on a sandbox by id
// (lifecycle, exec and files, terminals, desktop); it is over 400 lines because that is the
// runtime's whole public surface. launch.ts starts and tears down one sandbox, control.ts
// speaks the agent's protocol.
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

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import type * as net from "node:net";
import * as path from "node:path";
import type { Readable } from "node:stream";

import { bubblewrapStatus, visibleInSandboxes } from "./bwrap.ts";
import {
  BoundedStream,
  checkRunning,
  deadline,
  expectStream,
  MAX_FILE_BYTES,
  notify,
  readSizeLine,
  request,
  type Sandbox,
  type SandboxSpec,
  type State,
} from "./control.ts";
import { SandboxError } from "./errors.ts";
import {
  copyWritable,
  HOSTNAME_RE,
  ID_RE,
  launch,
  newSandbox,
  prepareFiles,
  restoreSnapshot,
  teardown,
  type LaunchSettings,
} from "./launch.ts";
import {
  cgroupName,
  removeLeftoverCgroup,
  resolveLimits,
  unmountDiskImage,
  type SandboxLimits,
} from "./limits.ts";
import { continueNamespace, stopNamespace } from "./procfs.ts";
import { Terminal, type TerminalInfo, type TerminalSession } from "./terminal.ts";

export { bubblewrapStatus } from "./bwrap.ts";
export { MAX_EXEC_OUTPUT_BYTES, MAX_FILE_BYTES, type SandboxSpec } from "./control.ts";
export { SandboxError, type SandboxErrorCode } from "./errors.ts";
export type { TerminalInfo, TerminalSession } from "./terminal.ts";
export { DEFAULT_LIMITS, type SandboxLimits } from "./limits.ts";

/** exec's exit code when the timeout killed the command (as coreutils `timeout`). */
export const EXEC_TIMEOUT_CODE = 124;
/** TCP port of the RFB server inside the sandbox's own network namespace (loopback only). */
export const DESKTOP_RFB_PORT = 5900;

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

function checkGuestPath(p: string): string {
  if (typeof p !== "string" || !p.startsWith("/")) {
    throw new SandboxError("INVALID_PATH", `guest path must be absolute: ${String(p)}`);
  }
  if (p.includes("\0")) throw new SandboxError("INVALID_PATH", "guest path contains a NUL byte");
  if (Buffer.byteLength(p) > 4096) throw new SandboxError("INVALID_PATH", "guest path too long");
  return path.posix.resolve(p);
}

export class SandboxRuntime {
  private rootDir: string;
  private maxTerminals: number;
  private terminalBackend: "auto" | "python" | "script";
  private desktopGeometry: string;
  private startTimeoutMs: number;
  readonly limits: SandboxLimits;
  private readonly settings: LaunchSettings;
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
    this.settings = {
      rootDir: this.rootDir,
      limits: this.limits,
      terminalBackend: this.terminalBackend,
      desktopGeometry: this.desktopGeometry,
      startTimeoutMs: this.startTimeoutMs,
    };
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
    await this.serialized(sb, () => teardown(sb));
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
    checkRunning(sb);
    if (typeof cmd !== "string" || cmd.includes("\0"))
      throw new TypeError("cmd must be a string without NUL bytes");
    if (!(timeoutSec > 0) || !Number.isFinite(timeoutSec))
      throw new TypeError("timeoutSec must be a positive number");
    sb.touch();
    const timeoutMs = Math.max(1, Math.round(timeoutSec * 1000));
    const r = await request(sb, { op: "exec", cmd: String(cmd), timeoutMs }, timeoutMs + 30_000);
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
    checkRunning(sb);
    sb.touch();
    const s = expectStream(sb);
    const reply = request(sb, { op: "readFile", path: p, token: s.token });
    reply.catch(() => {});
    const header = s.stream.then((sock) => readSizeLine(sock));
    header.catch(() => {});
    try {
      // The agent answers an error before sending anything; a file comes with its size first.
      const first = await Promise.race([header, reply.then(() => header)]);
      const { size, sock } = await deadline(sb, Promise.resolve(first), 30_000, "file stream");
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
    checkRunning(sb);
    sb.touch();
    const s = expectStream(sb);
    s.stream.then(
      (sock) => sock.end(data),
      () => {},
    );
    try {
      await request(sb, { op: "writeFile", path: p, token: s.token, size: data.length });
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
    checkRunning(sb);
    sb.touch();
    await request(sb, { op: "sshKey", action, key });
  }

  // ---------------------------------------------------------------------------------
  // Terminals

  openTerminal(id: string, cols: number, rows: number): TerminalSession {
    const sb = this.get(id);
    checkRunning(sb);
    const live = [...sb.terminals.values()].filter((t) => !t.exited).length;
    if (live >= this.maxTerminals) {
      throw new SandboxError(
        "LIMIT",
        `sandbox ${id} already has ${live} live terminals (max ${this.maxTerminals})`,
      );
    }
    const termId = "term-" + randomBytes(8).toString("hex");
    const term = new Terminal(termId, {
      checkUsable: () => checkRunning(sb),
      resize: async (c, r) => {
        await request(sb, { op: "termResize", term: termId, cols: c, rows: r });
      },
      kill: () => notify(sb, { op: "termKill", term: termId }),
      touch: () => sb.touch(),
    });
    sb.terminals.set(termId, term);
    sb.touch();
    const s = expectStream(sb);
    void (async () => {
      try {
        const [reply, sock] = await Promise.all([
          request(sb, { op: "termOpen", term: termId, token: s.token, cols, rows }),
          deadline(sb, s.stream, 30_000, "terminal stream"),
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
    checkRunning(sb);
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
      checkRunning(sb);
    }
    sb.touch();
    const s = expectStream(sb);
    try {
      const [, sock] = await Promise.all([
        request(sb, { op: "desktopConnect", token: s.token }),
        deadline(sb, s.stream, 30_000, "desktop stream"),
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
    const sb = newSandbox(this.rootDir, id, spec);
    this.boxes.set(id, sb);
    sb.starting = (async () => {
      try {
        await prepareFiles(sb, this.settings, populate);
        await launch(sb, this.settings);
        sb.state = "running";
        sb.touch();
      } catch (err) {
        await teardown(sb);
        if (this.boxes.get(id) === sb) this.boxes.delete(id);
        throw err;
      }
    })();
    await sb.starting;
  }
}

export interface FileStream {
  size: number;
  stream: Readable;
  done: Promise<void>;
}
