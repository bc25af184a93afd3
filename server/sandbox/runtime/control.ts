// One sandbox's host-side state and the control protocol with the agent inside it
// (agent.mts): newline-delimited JSON requests and replies over bwrap's stdin/stdout, events
// (terminal exit, desktop listening), and bulk byte streams (files, terminals, RFB) on a unix
// socket, each introduced by a random one-time token. Everything the agent says is
// untrusted: root in the sandbox can ptrace the agent, so the host bounds and validates it.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type * as net from "node:net";
import * as path from "node:path";

import { SandboxError } from "./errors.ts";
import type { SandboxCgroup } from "./limits.ts";
import type { FrozenSet } from "./procfs.ts";
import type { Terminal } from "./terminal.ts";

/** Largest file readFile/writeFile accept (TOO_LARGE beyond). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
/**
 * exec captures at most this many bytes of stdout and of stderr each (4 MiB); the rest
 * of the output is read and discarded (the command is not blocked).
 */
export const MAX_EXEC_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface SandboxSpec {
  hostname: string;
  desktop: boolean;
  /** A directory made by snapshot(); its files are copied into the new sandbox. */
  fromSnapshot?: string;
}

export type State = "starting" | "running" | "frozen" | "stopped" | "destroying";

export interface Reply {
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

const TOKEN_BYTES = 16; // 32 hex digits + "\n" on the wire
/** Stream connections that have not presented a valid token yet, per sandbox. */
const MAX_PENDING_CONNECTIONS = 64;

export class Sandbox {
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
  /**
   * An open descriptor of the PID namespace. The namespace is found by its inode number (`ns`),
   * which the kernel gives to a new namespace once the old one is freed: holding it open until
   * teardown has killed everything keeps another sandbox from taking that number meanwhile.
   */
  nsHandle: number | undefined;
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
  /** What holds `pause` (for the error of a call that waited too long). */
  pauseWhat = "";
  /**
   * How long a call waits for the sandbox while another operation holds it (`pause`, the
   * lifecycle lock) or while it is frozen under a call in progress, before failing with BUSY.
   */
  busyWaitMs = 5_000;
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

export function checkRunning(sb: Sandbox): void {
  if (sb.state === "running") return;
  if (sb.state === "frozen") throw new SandboxError("INVALID_STATE", `sandbox ${sb.id} is frozen`);
  throw new SandboxError("INVALID_STATE", `sandbox ${sb.id} is not running (${sb.state})`);
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
    "BUSY",
  ];
  const code = codes.includes(String(r.code)) ? (r.code as SandboxError["code"]) : "UNAVAILABLE";
  return new SandboxError(code, r.message ?? "sandbox agent error");
}

export function acceptStream(sb: Sandbox, conn: net.Socket): void {
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

export function expectStream(sb: Sandbox): ExpectedStream {
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

export function onReply(sb: Sandbox, msg: Reply): void {
  const p = sb.pending.get(msg.id);
  if (!p) return;
  sb.pending.delete(msg.id);
  if (msg.ok) p.resolve(msg);
  else p.reject(agentError(msg));
}

export function onEvent(sb: Sandbox, msg: Reply & { ev?: string }): void {
  if (msg.ev === "termExit") {
    const term = String(msg.term);
    (sb.terminals.get(term) ?? sb.closing.get(term))?.exitReported(Number(msg.code));
  } else if (msg.ev === "desktop") {
    sb.desktopListening = Boolean(msg.listening);
    if (sb.desktopListening) for (const w of [...sb.desktopWaiters]) w();
  }
}

export function onExit(sb: Sandbox): void {
  if (sb.state !== "destroying") sb.state = "stopped";
  sb.desktopListening = false;
  for (const p of sb.pending.values())
    p.reject(new SandboxError("INVALID_STATE", `sandbox ${sb.id} stopped`));
  sb.pending.clear();
  for (const t of [...sb.terminals.values(), ...sb.closing.values()]) t.sandboxGone(137);
  sb.markExited();
}

/** The error of a call that waited `busyWaitMs` for the sandbox. */
function busy(sb: Sandbox, what: string): SandboxError {
  const holder =
    sb.state === "frozen"
      ? "it is frozen"
      : sb.pause
        ? `${sb.pauseWhat || "a copy"} holds it`
        : "another operation holds it";
  return new SandboxError(
    "BUSY",
    `sandbox ${sb.id} is busy: ${holder}; ${what} waited ${sb.busyWaitMs / 1000} s for it. Retry shortly`,
  );
}

/**
 * Waits while the runtime holds the sandbox stopped for a copy (fork, snapshot), at most
 * `busyWaitMs` in all; BUSY after that.
 */
export async function untilFree(sb: Sandbox, what: string): Promise<void> {
  if (!sb.pause) return;
  const until = Date.now() + sb.busyWaitMs;
  while (sb.pause) {
    const left = until - Date.now();
    if (left <= 0) throw busy(sb, what);
    let timer!: NodeJS.Timeout;
    await Promise.race([sb.pause, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
    clearTimeout(timer);
  }
}

/**
 * Sends a request to the agent; waits (up to `busyWaitMs`) while the runtime holds the sandbox
 * stopped for a copy. The agent has `timeoutMs` of the sandbox's running time to answer; a call
 * the sandbox stays frozen or stopped under for `busyWaitMs` fails with BUSY.
 */
export async function request(sb: Sandbox, msg: Record<string, unknown>, timeoutMs = 60_000): Promise<Reply> {
  const what = String(msg.op);
  await untilFree(sb, what);
  checkRunning(sb);
  const id = sb.nextReq++;
  return new Promise<Reply>((resolve, reject) => {
    const cancel = runningTimeout(
      sb,
      timeoutMs,
      () => {
        sb.pending.delete(id);
        reject(new SandboxError("UNAVAILABLE", `sandbox ${sb.id} did not answer (${what})`));
      },
      () => {
        sb.pending.delete(id);
        reject(busy(sb, what));
      },
    );
    sb.pending.set(id, {
      resolve: (r) => {
        cancel();
        resolve(r);
      },
      reject: (e) => {
        cancel();
        reject(e);
      },
    });
    sb.proc!.stdin!.write(JSON.stringify({ ...msg, id }) + "\n");
  });
}

/**
 * Rejects with UNAVAILABLE if p has not settled after ms of the sandbox running (frozen time does
 * not count), with BUSY if the sandbox stays frozen or stopped under it for `busyWaitMs`.
 */
export function deadline<T>(sb: Sandbox, p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = runningTimeout(
      sb,
      ms,
      () => reject(new SandboxError("UNAVAILABLE", `sandbox ${sb.id}: ${what} did not complete`)),
      () => reject(busy(sb, what)),
    );
    p.then(
      (v) => {
        cancel();
        resolve(v);
      },
      (e: unknown) => {
        cancel();
        reject(e as Error);
      },
    );
  });
}

/** How often a call in progress looks whether its sandbox is frozen or stopped for a copy. */
const HELD_CHECK_MS = 250;

/**
 * Calls onTimeout once the sandbox has run for ms (time spent frozen, or stopped for a copy, does
 * not count), or onHeld once it has been frozen or stopped for `busyWaitMs` in a row (seen at
 * checks every 250 ms); the function returned cancels both.
 */
function runningTimeout(sb: Sandbox, ms: number, onTimeout: () => void, onHeld: () => void): () => void {
  let timer: NodeJS.Timeout;
  let ran = 0;
  let heldSince: number | undefined;
  let last = Date.now();
  const tick = () => {
    const now = Date.now();
    if (sb.state === "frozen" || sb.pause) {
      heldSince ??= last;
      if (now - heldSince >= sb.busyWaitMs) return onHeld();
    } else {
      heldSince = undefined;
      ran += now - last;
      if (ran >= ms) return onTimeout();
    }
    last = now;
    timer = setTimeout(tick, Math.min(HELD_CHECK_MS, Math.max(1, ms - ran)));
  };
  timer = setTimeout(tick, Math.min(HELD_CHECK_MS, ms));
  return () => clearTimeout(timer);
}

/** Fire-and-forget request (terminal resize/kill); delivered even while frozen (queued). */
export function notify(sb: Sandbox, msg: Record<string, unknown>): void {
  if (!sb.proc || sb.state === "stopped" || sb.state === "destroying") return;
  sb.proc.stdin!.write(JSON.stringify({ ...msg, id: 0 }) + "\n");
}
