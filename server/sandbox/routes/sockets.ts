// The terminal and desktop WebSockets of sandboxes: the ticket or token handshake, then bytes
// relayed both ways.

import type { IncomingMessage } from "node:http";
import type * as net from "node:net";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import type { ServerContext } from "../../context.ts";
import { ApiError } from "../../http/errors.ts";
import { bearer, checkWebSocketHandshake, writeSocketError } from "../../http/server.ts";
import type { Pool } from "../pools.ts";
import type { SandboxService } from "../service.ts";
import { connectDesktop, terminalOf } from "../targets.ts";
import type { TerminalSession } from "../runtime/index.ts";
import { sandboxApiError } from "./common.ts";

const TERMINAL_WS = /^\/orgs\/([^/]+)\/workloads\/([^/]+)\/terminals\/([^/]+)\/ws\/?$/;
const DESKTOP_WS = /^\/orgs\/([^/]+)\/workloads\/([^/]+)\/desktop\/ws\/?$/;
/** How long a desktop handshake waits for a desktop that is still starting. */
const DESKTOP_WAIT_MS = 15_000;
/** Largest WebSocket message accepted from clients. */
const MAX_PAYLOAD = 16 * 1024 * 1024;
/** RFB output is paused while this much is queued for a slow client. */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 512 * 1024;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Answers a refused handshake with the API's error body. */
function rejectUpgrade(socket: Duplex, e: unknown): number {
  const err =
    e instanceof ApiError
      ? e
      : new ApiError("SERVICE_UNAVAILABLE", "the WebSocket could not be opened; try again");
  writeSocketError(socket, err);
  return err.status;
}

/**
 * Terminal and desktop WebSockets. A handshake is admitted by a single-use access ticket
 * (`?ticket=`) or a bearer token of the org; binary frames carry raw PTY bytes (terminals) or raw
 * RFB bytes (desktop) both ways. No subprotocol is ever selected.
 */
export function registerSandboxWebSockets(ctx: ServerContext, svc: SandboxService): void {
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_PAYLOAD,
    handleProtocols: () => false,
  });
  ctx.onClose(() => {
    for (const ws of wss.clients) ws.terminate();
    wss.close();
  });

  /** The pool the handshake may use: the ticket's, or the X-Deployment-Type of a bearer request. */
  const admit = (req: IncomingMessage, org: string, uid: string): Pool => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const ticket = url.searchParams.get("ticket");
    if (ticket !== null) {
      const pool = svc.consumeTicket(ticket, org, uid);
      ctx.rateLimits.take(org);
      return pool;
    }
    const token = bearer(req);
    if (!token)
      throw new ApiError(
        "UNAUTHORIZED",
        "missing credentials: append ?ticket=<access ticket> or send Authorization: Bearer <API token>",
      );
    const tokenOrg = ctx.orgOfToken(token);
    if (!tokenOrg) throw new ApiError("UNAUTHORIZED", "invalid API token");
    ctx.rateLimits.take(tokenOrg);
    if (tokenOrg !== org)
      throw new ApiError("FORBIDDEN", `the API token is not valid for organization ${org}`);
    const dt = req.headers["x-deployment-type"];
    const v = (Array.isArray(dt) ? dt[0] : dt)?.trim();
    if (v !== undefined && v !== "master" && v !== "shadow")
      throw new ApiError(
        "INVALID_DEPLOYMENT_TYPE",
        `X-Deployment-Type must be master or shadow (got '${v}')`,
      );
    return svc.poolOf(v);
  };

  const openTerminal = (req: IncomingMessage, socket: Duplex, head: Buffer, m: RegExpExecArray) => {
    checkWebSocketHandshake(req);
    const [org, uid, termId] = [decode(m[1]!), decode(m[2]!), decode(m[3]!)];
    const pool = admit(req, org, uid);
    const t = svc.target(org, uid, pool, "connect to a terminal of", "running");
    const term = terminalOf(t, termId);
    wss.handleUpgrade(req, socket, head, (ws) => bridgeTerminal(ws, term));
  };

  const openDesktop = async (req: IncomingMessage, socket: Duplex, head: Buffer, m: RegExpExecArray) => {
    checkWebSocketHandshake(req);
    const [org, uid] = [decode(m[1]!), decode(m[2]!)];
    const pool = admit(req, org, uid);
    const t = svc.target(org, uid, pool, "connect to the desktop of", "running");
    let sock: net.Socket;
    try {
      sock = await connectDesktop(t, DESKTOP_WAIT_MS);
    } catch (e) {
      throw sandboxApiError(svc, e, t);
    }
    let taken = false;
    if (!socket.destroyed)
      wss.handleUpgrade(req, socket, head, (ws) => {
        taken = true;
        bridgeDesktop(ws, sock, () => svc.touch(t.live));
      });
    if (!taken) sock.destroy();
  };

  ctx.onUpgrade(async (req, socket, head, path) => {
    const tm = TERMINAL_WS.exec(path);
    const dm = tm ? null : DESKTOP_WS.exec(path);
    if ((!tm && !dm) || !svc.active()) return false;
    try {
      if (tm) openTerminal(req, socket, head, tm);
      else await openDesktop(req, socket, head, dm!);
    } catch (e) {
      const status = rejectUpgrade(socket, e);
      if (!(e instanceof ApiError)) ctx.log(`sandbox WebSocket ${path}: ${(e as Error)?.stack ?? String(e)}`);
      ctx.log(`UPGRADE /v3${path} refused ${status}`);
    }
    return true;
  });
}

function bridgeTerminal(ws: WebSocket, term: TerminalSession): void {
  ws.on("error", () => {});
  const offData = term.onData((b) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(b, { binary: true });
  });
  const offExit = term.onExit((code) => {
    if (ws.readyState === WebSocket.OPEN) ws.close(1000, `terminal exited with code ${code}`);
  });
  ws.on("message", (data: RawData) => {
    try {
      term.write(toBuffer(data));
    } catch {
      // the sandbox is frozen: input typed meanwhile is dropped
    }
  });
  ws.on("close", () => {
    offData();
    offExit();
  });
}

/** Bridges a desktop WebSocket and the sandbox's RFB socket; traffic either way is activity. */
function bridgeDesktop(ws: WebSocket, sock: net.Socket, activity: () => void): void {
  ws.on("error", () => {});
  sock.on("error", () => {});
  let paused = false;
  sock.on("data", (b: Buffer) => {
    activity();
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(b, { binary: true }, () => {
      if (paused && ws.bufferedAmount < LOW_WATER) {
        paused = false;
        sock.resume();
      }
    });
    if (ws.bufferedAmount > HIGH_WATER) {
      paused = true;
      sock.pause();
    }
  });
  ws.on("message", (data: RawData) => {
    activity();
    sock.write(toBuffer(data));
  });
  sock.on("close", () => {
    if (ws.readyState === WebSocket.OPEN) ws.close(1000, "desktop closed");
  });
  ws.on("close", () => sock.destroy());
}
