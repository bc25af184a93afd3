// Host side of a sandbox terminal: raw bytes to and from a PTY inside the sandbox.

import type * as net from "node:net";

import { SandboxError } from "./errors.ts";

export interface TerminalInfo {
  id: string;
  pid: number;
  started_at: string;
  exited: boolean;
  exit_code?: number;
}

export interface TerminalSession {
  id: string;
  /** PID of the shell inside the sandbox (its own PID namespace); 0 until `ready` resolves. */
  pid: number;
  startedAt: string;
  exited: boolean;
  exitCode?: number;
  /** Resolves once the shell runs (pid known); rejects if it could not be started. */
  ready: Promise<void>;
  write(data: Buffer): void;
  resize(cols: number, rows: number): void;
  onData(cb: (b: Buffer) => void): () => void;
  onExit(cb: (code: number) => void): () => void;
  kill(): void;
}

export interface TerminalHooks {
  /** Throws (SandboxError INVALID_STATE) when the sandbox cannot take input now (frozen). */
  checkUsable(): void;
  /** Resolves once the agent has passed the new size on to the PTY. */
  resize(cols: number, rows: number): Promise<void>;
  kill(): void;
  touch(): void;
}

/** Output kept while nobody listens (delivered to the first onData subscriber). */
const BACKLOG_BYTES = 1 << 20;

export class Terminal implements TerminalSession {
  id: string;
  pid = 0;
  startedAt: string;
  exited = false;
  exitCode?: number;
  ready: Promise<void>;

  private hooks: TerminalHooks;
  private sock: net.Socket | undefined;
  private pendingInput: Buffer[] = [];
  private pendingSize: [number, number] | undefined;
  private inputOpen = false;
  private dataCbs = new Set<(b: Buffer) => void>();
  private exitCbs = new Set<(code: number) => void>();
  private backlog: Buffer[] = [];
  private backlogBytes = 0;
  private streamClosed = false;
  private reportedCode: number | undefined;
  private resolveReady!: () => void;
  private rejectReady!: (e: Error) => void;

  constructor(id: string, hooks: TerminalHooks) {
    this.id = id;
    this.hooks = hooks;
    this.startedAt = new Date().toISOString();
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // Callers that only use the synchronous API must not see unhandled rejections.
    this.ready.catch(() => {});
  }

  info(): TerminalInfo {
    const i: TerminalInfo = { id: this.id, pid: this.pid, started_at: this.startedAt, exited: this.exited };
    if (this.exited) i.exit_code = this.exitCode;
    return i;
  }

  /** Called by the runtime when the agent has connected the data stream and started the shell. */
  started(pid: number, sock: net.Socket): void {
    this.pid = pid;
    this.sock = sock;
    sock.on("data", (b: Buffer) => this.emitData(b));
    sock.on("error", () => {});
    sock.on("close", () => {
      this.streamClosed = true;
      this.maybeFinish();
    });
    const flush = () => {
      this.inputOpen = true;
      for (const b of this.pendingInput) sock.write(b);
      this.pendingInput = [];
    };
    // A size set before the shell was up is applied before the input typed meanwhile.
    if (this.pendingSize) {
      this.hooks
        .resize(...this.pendingSize)
        .catch(() => {})
        .finally(flush);
    } else flush();
    this.pendingSize = undefined;
    this.resolveReady();
  }

  /** The shell could not be started. */
  failed(err: Error): void {
    this.rejectReady(err);
    this.finish(-1);
  }

  /** The agent reported the shell's exit status (output may still be in flight). */
  exitReported(code: number): void {
    this.reportedCode = code;
    this.maybeFinish();
    // Do not wait for a stream that never closes.
    setTimeout(() => this.finish(code), 1000).unref();
  }

  /** The sandbox went away (destroyed or crashed). */
  sandboxGone(code: number): void {
    this.rejectReady(new SandboxError("INVALID_STATE", "the sandbox stopped before the terminal started"));
    this.finish(this.reportedCode ?? code);
  }

  private maybeFinish(): void {
    if (this.reportedCode !== undefined && this.streamClosed) this.finish(this.reportedCode);
  }

  private finish(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.sock?.destroy();
    for (const cb of [...this.exitCbs]) cb(code);
    this.exitCbs.clear();
  }

  private emitData(b: Buffer): void {
    this.hooks.touch();
    if (this.dataCbs.size === 0) {
      this.backlog.push(b);
      this.backlogBytes += b.length;
      while (this.backlogBytes > BACKLOG_BYTES && this.backlog.length > 1) {
        this.backlogBytes -= this.backlog.shift()!.length;
      }
      return;
    }
    for (const cb of [...this.dataCbs]) cb(b);
  }

  write(data: Buffer): void {
    if (this.exited) return;
    this.hooks.checkUsable();
    this.hooks.touch();
    if (this.sock && this.inputOpen) this.sock.write(data);
    else this.pendingInput.push(Buffer.from(data));
  }

  resize(cols: number, rows: number): void {
    if (this.exited) return;
    this.hooks.checkUsable();
    if (this.sock) this.hooks.resize(cols, rows).catch(() => {});
    else this.pendingSize = [cols, rows];
  }

  onData(cb: (b: Buffer) => void): () => void {
    this.dataCbs.add(cb);
    if (this.backlog.length) {
      const backlog = Buffer.concat(this.backlog);
      this.backlog = [];
      this.backlogBytes = 0;
      cb(backlog);
    }
    return () => this.dataCbs.delete(cb);
  }

  onExit(cb: (code: number) => void): () => void {
    if (this.exited) {
      const code = this.exitCode ?? -1;
      queueMicrotask(() => cb(code));
      return () => {};
    }
    this.exitCbs.add(cb);
    return () => this.exitCbs.delete(cb);
  }

  kill(): void {
    if (this.exited) return;
    this.hooks.kill();
  }
}
