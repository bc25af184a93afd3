// SandboxRuntime, the runtime's operations on sandboxes by id: one long-lived `bwrap` per
// sandbox with a small agent inside (agent.mts). The work is done by launch.ts (start and
// teardown of one sandbox), control.ts (the agent's protocol), files.ts (file I/O) and
// sessions.ts (terminals, desktop); the design is described in ../README.md.

import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import type * as net from "node:net";
import * as path from "node:path";

import { bubblewrapStatus, visibleInSandboxes } from "./bwrap.ts";
import { checkRunning, request, type Sandbox, type SandboxSpec, type State } from "./control.ts";
import { SandboxError } from "./errors.ts";
import { openGuestFile, readAll, writeGuestFile, type FileStream } from "./files.ts";
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
import { closeTerminal, connectDesktop, desktopInfo, openTerminal } from "./sessions.ts";
import type { TerminalInfo, TerminalSession } from "./terminal.ts";

/** exec's exit code when the timeout killed the command (as coreutils `timeout`). */
export const EXEC_TIMEOUT_CODE = 124;

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
  /**
   * How long an operation waits for a sandbox that another operation holds (a fork's or
   * snapshot's copy, a freeze, a thaw), or that stays frozen under a call in progress, before it
   * fails with BUSY (default 5 s). A destroy waits this long, then goes ahead.
   */
  busyWaitMs?: number;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
  timedOut: boolean;
}

export class SandboxRuntime {
  private rootDir: string;
  private maxTerminals: number;
  private terminalBackend: "auto" | "python" | "script";
  private desktopGeometry: string;
  private startTimeoutMs: number;
  private busyWaitMs: number;
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
    this.busyWaitMs = opts.busyWaitMs ?? 5_000;
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
      this.serialized(parent, "fork", () =>
        this.withStopped(parent, "a fork's copy", () => copyWritable(parent.fsDir, fsDir)),
      ),
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
      await this.serialized(sb, "snapshot", () =>
        this.withStopped(sb, "a snapshot's copy", () => copyWritable(sb.fsDir, dest)),
      );
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
    await this.serialized(sb, "freeze", async () => {
      if (sb.state === "frozen") return;
      if (sb.state !== "running") throw new SandboxError("INVALID_STATE", `sandbox ${id} is ${sb.state}`);
      sb.state = "frozen";
      try {
        sb.frozen = await stopNamespace(sb.ns!);
      } catch (err) {
        // stopNamespace has continued what it stopped.
        sb.state = "running";
        throw new SandboxError("UNAVAILABLE", String(err));
      }
    });
  }

  async thaw(id: string): Promise<void> {
    const sb = this.get(id);
    await this.serialized(sb, "thaw", async () => {
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
    // A destroy does not give up: once busyWaitMs has passed, it goes ahead (a copy from the
    // sandbox then fails).
    await this.serialized(sb, "destroy", () => teardown(sb), { orProceed: true });
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

  /** Opens a file of the sandbox for reading: its size, a stream of its bytes, `done` (see files.ts). */
  async openFile(id: string, guestPath: string): Promise<FileStream> {
    return openGuestFile(this.get(id), guestPath);
  }

  async readFile(id: string, guestPath: string): Promise<Buffer> {
    return readAll(await this.openFile(id, guestPath));
  }

  async writeFile(id: string, guestPath: string, data: Buffer): Promise<void> {
    await writeGuestFile(this.get(id), guestPath, data);
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
    return openTerminal(this.get(id), cols, rows, this.maxTerminals);
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
    closeTerminal(this.get(id), terminalId);
  }

  // ---------------------------------------------------------------------------------
  // Desktop

  desktop(id: string): { available: false } | { available: true; port: number; listening: boolean } {
    return desktopInfo(this.get(id));
  }

  async connectDesktop(id: string, waitMs = 20_000): Promise<net.Socket> {
    return connectDesktop(this.get(id), waitMs);
  }

  // ---------------------------------------------------------------------------------
  // Internals

  private get(id: string): Sandbox {
    const sb = this.boxes.get(id);
    if (!sb) throw new SandboxError("NOT_FOUND", `no sandbox ${id}`);
    return sb;
  }

  /**
   * Runs lifecycle operations of one sandbox one at a time. One that cannot start within
   * busyWaitMs (the one before it still runs) fails with BUSY without running, or, with
   * `orProceed`, runs anyway. The next one waits for both.
   */
  private serialized<T>(
    sb: Sandbox,
    what: string,
    fn: () => Promise<T>,
    opts: { orProceed?: boolean } = {},
  ): Promise<T> {
    const before = sb.lock;
    const run = (async () => {
      let timer!: NodeJS.Timeout;
      const free = await Promise.race([
        before.then(() => true),
        new Promise<false>((r) => (timer = setTimeout(() => r(false), this.busyWaitMs))),
      ]);
      clearTimeout(timer);
      if (!free && !opts.orProceed) {
        throw new SandboxError(
          "BUSY",
          `sandbox ${sb.id} is busy: another operation holds it; ${what} waited ${this.busyWaitMs / 1000} s for it. Retry shortly`,
        );
      }
      return fn();
    })();
    sb.lock = Promise.all([before, run.catch(() => {})]);
    return run;
  }

  /** Runs fn with every process of the sandbox stopped (already-frozen sandboxes stay frozen). */
  private async withStopped<T>(sb: Sandbox, what: string, fn: () => Promise<T>): Promise<T> {
    if (sb.state === "frozen") return fn();
    if (sb.state !== "running") throw new SandboxError("INVALID_STATE", `sandbox ${sb.id} is ${sb.state}`);
    let release!: () => void;
    sb.pause = new Promise((r) => (release = r));
    sb.pauseWhat = what;
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
    sb.busyWaitMs = this.busyWaitMs;
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
