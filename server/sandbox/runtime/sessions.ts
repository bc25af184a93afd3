// Interactive sessions of a sandbox (see ../README.md, "Terminals" and "Desktop"): terminals on a
// PTY inside the sandbox and the connection to its desktop's RFB server, each a byte stream over
// the control socket.

import { randomBytes } from "node:crypto";
import type * as net from "node:net";

import { checkRunning, deadline, expectStream, notify, request, type Sandbox } from "./control.ts";
import { SandboxError } from "./errors.ts";
import { Terminal, type TerminalSession } from "./terminal.ts";

/** TCP port of the RFB server inside the sandbox's own network namespace (loopback only). */
export const DESKTOP_RFB_PORT = 5900;

/** Opens a terminal (at most maxTerminals live ones per sandbox); its shell starts asynchronously. */
export function openTerminal(sb: Sandbox, cols: number, rows: number, maxTerminals: number): TerminalSession {
  checkRunning(sb);
  const live = [...sb.terminals.values()].filter((t) => !t.exited).length;
  if (live >= maxTerminals) {
    throw new SandboxError(
      "LIMIT",
      `sandbox ${sb.id} already has ${live} live terminals (max ${maxTerminals})`,
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

/** Forgets a terminal; one still running is killed (and kept until it exits). */
export function closeTerminal(sb: Sandbox, terminalId: string): void {
  const t = sb.terminals.get(terminalId);
  if (!t) throw new SandboxError("NOT_FOUND", `no terminal ${terminalId} in sandbox ${sb.id}`);
  sb.terminals.delete(terminalId);
  if (!t.exited) {
    sb.closing.set(terminalId, t);
    t.onExit(() => sb.closing.delete(terminalId));
    t.kill();
  }
}

export function desktopInfo(
  sb: Sandbox,
): { available: false } | { available: true; port: number; listening: boolean } {
  if (!sb.spec.desktop) return { available: false };
  return {
    available: true,
    port: DESKTOP_RFB_PORT,
    listening: sb.desktopListening && sb.state === "running",
  };
}

/** A host socket relayed to the desktop's RFB server, once it listens (waiting up to waitMs). */
export async function connectDesktop(sb: Sandbox, waitMs: number): Promise<net.Socket> {
  if (!sb.spec.desktop) throw new SandboxError("NO_DESKTOP", `sandbox ${sb.id} has no desktop`);
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
