/**
 * Request bodies and the connections they arrive on.
 *
 * - An answer never leaves its keep-alive connection stuck on a body the route did not read to its
 *   end. node:http drains a body nobody touched, but not one a route started to read and then
 *   left (an error part way through it): its socket stays paused and the client's next request
 *   on that connection is never read. So once an answer is sent, the rest of an unread body is
 *   drained; when the request stream was destroyed, its rest can no longer be read, and the
 *   answer closes the connection (`Connection: close`).
 * - A body that stops arriving (a Content-Length larger than what the client sends, a chunked
 *   body never ended) gets 408 REQUEST_TIMEOUT and a close after `bodyIdleMs` without a byte of
 *   it; once answered, the connection is closed. Time the server itself does not read (a route
 *   that has not asked for the body yet) does not count.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { ApiError } from "./errors.ts";
import { TIMEOUT_CHECK_MS } from "./timeouts.ts";

interface Watched {
  req: IncomingMessage;
  res: ServerResponse;
  socket: Socket;
  bytes: number;
  since: number;
}

/** Whether a request carries a body (a Content-Length above 0, or a Transfer-Encoding). */
function hasBody(req: IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const n = Number(req.headers["content-length"]);
  return Number.isFinite(n) && n > 0;
}

export class RequestBodies {
  private readonly idleMs: number;
  /** Answers a request whose body stopped arriving (its reply goes out at once, closing). */
  private readonly answer: (res: ServerResponse, e: ApiError) => void;
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;

  constructor(idleMs: number, answer: (res: ServerResponse, e: ApiError) => void) {
    this.idleMs = idleMs;
    this.answer = answer;
  }

  /** Called by the request listener with every request, before any route sees it. */
  track(req: IncomingMessage, res: ServerResponse): void {
    if (!hasBody(req)) return;
    // A destroyed request loses its socket (req.socket is null then): keep it here.
    const socket = req.socket;
    res.once("finish", () => {
      if (req.readableEnded) return;
      if (!req.destroyed) req.resume();
      else if (!req.complete) socket.destroy();
    });
    if (req.complete) return;
    const w: Watched = { req, res, socket, bytes: socket.bytesRead, since: Date.now() };
    this.watched.add(w);
    // Out of the set as soon as the body has arrived (or the request is gone): held until the next
    // check, every request with a body would outlive young-generation collections, and the old
    // generation would grow with them under load.
    const done = () => this.watched.delete(w);
    req.once("end", done);
    req.once("close", done);
    this.timer ??= setInterval(() => this.check(), Math.min(TIMEOUT_CHECK_MS, this.idleMs)).unref();
  }

  /** Stops the checks (the server closes). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }

  private check(): void {
    const now = Date.now();
    for (const w of this.watched) {
      if (w.req.complete || w.socket.destroyed) {
        this.watched.delete(w);
        continue;
      }
      const bytes = w.socket.bytesRead;
      // Bytes came, or the server is not reading (a route has not asked for the body yet).
      if (bytes !== w.bytes || w.socket.isPaused()) {
        w.bytes = bytes;
        w.since = now;
        continue;
      }
      if (now - w.since < this.idleMs) continue;
      this.watched.delete(w);
      this.timeout(w);
    }
    if (this.watched.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private timeout(w: Watched): void {
    if (w.res.headersSent || w.res.writableEnded) {
      // Answered already: the rest of the body was being drained. Nothing more to say.
      w.socket.destroy();
      return;
    }
    const declared = w.req.headers["content-length"];
    const e = ApiError.custom(
      408,
      "REQUEST_TIMEOUT",
      `the request body stopped arriving: no byte of it for ${this.idleMs / 1000} s` +
        (declared === undefined ? " (chunked body not ended)" : ` (Content-Length: ${declared})`),
      { connection: "close" },
    );
    w.res.shouldKeepAlive = false;
    this.answer(w.res, e);
    // A route still waiting for the body learns it will not come; its answer goes nowhere.
    w.res.once("finish", () => w.req.destroy(e));
  }
}

/**
 * The ServerResponse class of the server, over `Base`: an answer to a request whose stream was
 * destroyed before its body was read to the end says `Connection: close` (what is left of the
 * body can no longer be read, so the connection cannot carry another request).
 */
export function bodySafeResponses(Base: typeof ServerResponse): typeof ServerResponse {
  return class BodySafeResponse extends Base {
    override writeHead(...args: unknown[]): this {
      const req = (this as ServerResponse).req as IncomingMessage | undefined;
      if (req && req.destroyed && !req.complete && hasBody(req)) this.shouldKeepAlive = false;
      return (Base.prototype.writeHead as (...a: unknown[]) => this).apply(this, args);
    }
  } as typeof ServerResponse;
}
