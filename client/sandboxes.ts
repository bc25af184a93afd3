/** `client.sandboxes`: sandbox operations of spec section 4.2 (create/deploy/get/delete are in `client.workloads`). */
import type WebSocket from "ws";
import { SANDBOXES, WORKLOADS } from "../api/endpoints/index.ts";
import type {
  Desktop,
  ExecBody,
  ExecResult,
  ForkBody,
  PublishBody,
  SandboxTemplate,
  TerminalCreate,
  TerminalSession,
  Ticket,
  TicketBody,
  WorkloadOperation,
} from "../api/index.ts";
import { CwsConnectionError, CwsTimeoutError, apiError } from "./errors.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { sleep } from "./retry.ts";

export interface ConnectOptions extends RequestOptions {
  /** Lifetime of the ticket minted for this connection (1-300 s, default 60). */
  ticketTtlSec?: number;
}

export interface DesktopConnectOptions extends ConnectOptions {
  /** How long to poll while the desktop service is still starting (`listening: false`); default 30 s. */
  waitMs?: number;
}

export class Sandboxes {
  #t: Transport;
  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** running → frozen: stops the sandbox's processes, keeps its files. */
  freeze(uid: string, opts?: RequestOptions): Promise<WorkloadOperation> {
    return this.#t.json({ endpoint: SANDBOXES.freeze, params: { uid } }, opts);
  }

  /** frozen → running. */
  thaw(uid: string, opts?: RequestOptions): Promise<WorkloadOperation> {
    return this.#t.json({ endpoint: SANDBOXES.thaw, params: { uid } }, opts);
  }

  /** Creates and deploys a child of a running sandbox (empty body: named `{parent}-fork`). Not retried after an ambiguous failure. */
  fork(uid: string, body: ForkBody = {}, opts?: RequestOptions): Promise<WorkloadOperation> {
    return this.#t.json({ endpoint: SANDBOXES.fork, params: { uid }, body }, opts);
  }

  /** Publishes a running sandbox as a USER template (PENDING; wait with `sandboxTemplates.waitForStatus`). */
  publish(uid: string, body: PublishBody, opts?: RequestOptions): Promise<SandboxTemplate> {
    return this.#t.json({ endpoint: SANDBOXES.publish, params: { uid }, body }, opts);
  }

  /**
   * Runs a shell command in the sandbox and returns its output. The request timeout is raised
   * to cover `timeout_sec` (plus 10 s) unless `opts.timeoutMs` says otherwise.
   */
  exec(uid: string, body: ExecBody, opts: RequestOptions = {}): Promise<ExecResult> {
    const needMs = ((body.timeout_sec ?? 60) + 10) * 1000;
    const timeoutMs = opts.timeoutMs ?? Math.max(needMs, this.#t.defaultTimeoutMs());
    return this.#t.json({ endpoint: WORKLOADS.exec, params: { uid }, body }, { ...opts, timeoutMs });
  }

  /** Reads a file (absolute guest path). */
  async readFile(uid: string, path: string, opts?: RequestOptions): Promise<Buffer> {
    const f = await this.#t.json({ endpoint: SANDBOXES.readFile, params: { uid }, query: { path } }, opts);
    return Buffer.from(f.content_b64, "base64");
  }

  /** Writes (creates or replaces) a file; strings are written as UTF-8. Idempotent: retried like a GET. */
  writeFile(
    uid: string,
    path: string,
    data: Buffer | Uint8Array | string,
    opts?: RequestOptions,
  ): Promise<void> {
    const content_b64 = (typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data)).toString(
      "base64",
    );
    return this.#t.empty(
      { endpoint: SANDBOXES.writeFile, params: { uid }, body: { path, content_b64 } },
      opts,
    );
  }

  /** Mints a single-use WebSocket access ticket. Retried like a GET (a spare ticket just expires). */
  createTicket(uid: string, body: TicketBody = {}, opts?: RequestOptions): Promise<Ticket> {
    return this.#t.json({ endpoint: SANDBOXES.createTicket, params: { uid }, body, idempotent: true }, opts);
  }

  listTerminals(uid: string, opts?: RequestOptions): Promise<TerminalSession[]> {
    return this.#t.json({ endpoint: SANDBOXES.listTerminals, params: { uid } }, opts);
  }

  /** Starts a terminal session (default 80x24). Not retried after an ambiguous failure. */
  createTerminal(uid: string, body: TerminalCreate = {}, opts?: RequestOptions): Promise<TerminalSession> {
    return this.#t.json({ endpoint: SANDBOXES.createTerminal, params: { uid }, body }, opts);
  }

  deleteTerminal(uid: string, terminalId: string, opts?: RequestOptions): Promise<void> {
    return this.#t.empty({ endpoint: SANDBOXES.deleteTerminal, params: { uid, terminal: terminalId } }, opts);
  }

  desktop(uid: string, opts?: RequestOptions): Promise<Desktop> {
    return this.#t.json({ endpoint: SANDBOXES.desktop, params: { uid } }, opts);
  }

  /**
   * Opens the terminal's WebSocket (binary frames of raw PTY data) with a freshly minted ticket.
   * Resolves once the socket is open; frames that arrive first are held until the next macrotask, so
   * listeners attached right after the await see them. A refused handshake rejects with the
   * matching `CwsApiError`.
   */
  async connectTerminal(uid: string, terminalId: string, opts: ConnectOptions = {}): Promise<WebSocket> {
    const p = this.#t.prepare({ endpoint: SANDBOXES.terminalSocket, params: { uid, terminal: terminalId } });
    const { ticket } = await this.createTicket(uid, ticketBody(opts), opts);
    const url = new URL(wsBase(this.#t.baseUrl) + p.path);
    url.searchParams.set("ticket", ticket);
    return this.#open(url, p, opts);
  }

  /**
   * Opens the desktop WebSocket (raw RFB bytes, no subprotocol) at the desktop's `ws_url` with a
   * fresh ticket. Polls while the desktop is still starting; a headless sandbox rejects with a
   * `CwsNotFoundError` (reason WORKLOAD_SANDBOX_NO_DESKTOP).
   */
  async connectDesktop(uid: string, opts: DesktopConnectOptions = {}): Promise<WebSocket> {
    const p = this.#t.prepare({ endpoint: SANDBOXES.desktopSocket, params: { uid } });
    const deadline = Date.now() + (opts.waitMs ?? 30_000);
    let delay = 100;
    let d = await this.desktop(uid, opts);
    while (d.available && !d.listening) {
      if (Date.now() >= deadline)
        throw new CwsTimeoutError({ ...p, timeoutMs: opts.waitMs ?? 30_000, code: "DESKTOP_NOT_LISTENING" });
      await sleep(Math.min(delay, Math.max(0, deadline - Date.now())), opts.signal);
      delay = Math.min(delay * 2, 1_000);
      d = await this.desktop(uid, opts);
    }
    if (!d.available) {
      throw apiError({
        ...p,
        status: 404,
        reason: "WORKLOAD_SANDBOX_NO_DESKTOP",
        message: `sandbox ${uid} has no desktop`,
      });
    }
    const { ticket } = await this.createTicket(uid, ticketBody(opts), opts);
    const url = new URL(d.ws_url, wsBase(this.#t.baseUrl) + p.path);
    if (url.protocol === "http:") url.protocol = "ws:";
    if (url.protocol === "https:") url.protocol = "wss:";
    url.searchParams.set("ticket", ticket);
    return this.#open(url, p, opts);
  }

  /** Opens a WebSocket; `ws` is loaded on first use, so callers of the HTTP routes never load it. */
  async #open(
    url: URL,
    p: { method: string; route: string; path: string },
    opts: RequestOptions,
  ): Promise<WebSocket> {
    const { default: WebSocket } = await import("ws");
    const headers: Record<string, string> = { "user-agent": this.#t.authHeaders()["user-agent"]! };
    if (opts.deploymentType) headers["x-deployment-type"] = opts.deploymentType;
    const timeoutMs = opts.timeoutMs ?? this.#t.defaultTimeoutMs();
    return new Promise<WebSocket>((resolve, reject) => {
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      const ws = new WebSocket(url, { headers, handshakeTimeout: timeoutMs, perMessageDeflate: false });
      let settled = false;
      const onError = (e: Error & { code?: string }) => {
        const timedOut = /timed out/i.test(e.message);
        settle(
          timedOut
            ? new CwsTimeoutError({ ...p, timeoutMs })
            : new CwsConnectionError({
                ...p,
                message: `WebSocket failed: ${e.message}`,
                code: e.code,
                sent: true,
                cause: e,
              }),
        );
      };
      const settle = (err: unknown) => {
        if (settled) return;
        settled = true;
        opts.signal?.removeEventListener("abort", onAbort);
        ws.off("error", onError);
        if (err === undefined) return resolve(ws);
        ws.on("error", () => {}); // the socket is discarded; later errors have no one to tell
        reject(err);
      };
      const onAbort = () => {
        ws.terminate();
        settle(opts.signal!.reason);
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      ws.once("open", () => {
        // The server may speak first (RFB greeting, shell prompt): hold incoming frames until the
        // caller, resumed by this promise, has attached its listeners.
        ws.pause();
        settle(undefined);
        setImmediate(() => ws.resume());
      });
      ws.once("unexpected-response", (req, res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let reason: string | undefined;
          let message: string | undefined = text.slice(0, 500) || undefined;
          try {
            const b = JSON.parse(text) as { error?: unknown; reason?: unknown };
            if (typeof b.error === "string") message = b.error;
            if (typeof b.reason === "string") reason = b.reason;
          } catch {
            // not JSON: keep the text
          }
          const rid = res.headers["x-request-id"];
          settle(
            apiError({
              ...p,
              status: res.statusCode ?? 0,
              reason,
              message,
              requestId: Array.isArray(rid) ? rid[0] : rid,
            }),
          );
          req.destroy();
        });
      });
      ws.on("error", onError);
    });
  }
}

function ticketBody(opts: ConnectOptions): TicketBody {
  return opts.ticketTtlSec === undefined ? {} : { ttl_sec: opts.ticketTtlSec };
}

/** ws:// or wss:// form of the base URL. */
export function wsBase(baseUrl: string): string {
  return baseUrl.replace(/^http(s?):/i, (_m, s: string) => `ws${s}:`);
}
