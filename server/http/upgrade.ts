import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { ServerContext, UpgradeHandler } from "../context.ts";
import { durableResponses } from "./durable.ts";
import { ApiError } from "./errors.ts";
import { API_PREFIX, parseRequestTarget } from "./path.ts";

// Protocol upgrades (WebSocket handshakes) and requests the HTTP parser refuses.

/** Writes an API error on a raw socket (an upgrade that is refused), then closes it. */
export function writeSocketError(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify({ error: err.message, reason: err.reason });
  if (socket.destroyed) return;
  if (!socket.writable) {
    // Nothing can be said on it any more: never leave it open.
    socket.destroy();
    return;
  }
  const extra = Object.entries(err.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? "Error"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      extra +
      "Connection: close\r\n\r\n" +
      body,
  );
}

/**
 * The checks RFC 6455 puts on a WebSocket handshake (GET, Upgrade: websocket, version 13,
 * a 16-byte base64 key), as API errors: the WebSocket library would answer them in text.
 */
export function checkWebSocketHandshake(req: IncomingMessage): void {
  if (req.method !== "GET")
    throw ApiError.custom(400, "WEBSOCKET_HANDSHAKE_INVALID", "a WebSocket handshake must be a GET request");
  const version = req.headers["sec-websocket-version"];
  if (version !== "13")
    throw ApiError.custom(
      426,
      "WEBSOCKET_HANDSHAKE_INVALID",
      `Sec-WebSocket-Version must be 13 (got ${version === undefined ? "none" : `'${String(version).slice(0, 50)}'`})`,
      { "sec-websocket-version": "13" },
    );
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || !/^[A-Za-z0-9+/]{22}==$/.test(key.trim()))
    throw ApiError.custom(
      400,
      "WEBSOCKET_HANDSHAKE_INVALID",
      "Sec-WebSocket-Key must be the base64 of 16 bytes",
    );
}

/**
 * The node:http 'upgrade' listener. WebSocket upgrades are offered to the registered
 * handlers in turn; a request that none of them takes (another protocol such as h2c, or a
 * WebSocket upgrade of a REST route) is answered as the plain HTTP/1.1 request it also is,
 * by `plain` (the request listener): the Upgrade header is ignored, as HTTP allows.
 */
export function createUpgradeListener(
  ctx: ServerContext,
  handlers: UpgradeHandler[],
  plain: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const answerPlain = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const length = req.headers["content-length"];
    if (
      (length !== undefined && length !== "0") ||
      req.headers["transfer-encoding"] !== undefined ||
      head.length
    ) {
      // node:http hands over the socket of an upgrade unparsed: a body cannot be read here.
      writeSocketError(
        socket,
        new ApiError(
          "INVALID_BODY",
          "a request with a body cannot ask for a protocol upgrade; drop the Upgrade header",
        ),
      );
      return;
    }
    const res = new (durableResponses(ctx.store))(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on("finish", () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    req.push(null);
    plain(req, res);
  };
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => socket.destroy());
    const isWebSocket = String(req.headers.upgrade ?? "").toLowerCase() === "websocket";
    let pathname: string;
    try {
      pathname = parseRequestTarget(req.url).pathname;
    } catch (e) {
      writeSocketError(socket, e as ApiError);
      return;
    }
    if (!isWebSocket || !pathname.startsWith(`${API_PREFIX}/`)) {
      answerPlain(req, socket, head);
      return;
    }
    const path = pathname.slice(API_PREFIX.length);
    void (async () => {
      for (const h of handlers) {
        try {
          if (await h(req, socket, head, path)) {
            ctx.log(`UPGRADE ${pathname} 101`);
            return;
          }
        } catch (e) {
          ctx.log(`upgrade handler error on ${pathname}: ${(e as Error).message}`);
          writeSocketError(
            socket,
            e instanceof ApiError
              ? e
              : new ApiError("SERVICE_UNAVAILABLE", "the WebSocket could not be opened; try again"),
          );
          return;
        }
      }
      answerPlain(req, socket, head);
    })();
  };
}

/**
 * The node:http 'clientError' listener: requests the HTTP parser refuses (bad request line
 * or headers, headers too large) get the API's JSON error body too.
 */
export function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  // An answer already begun on the connection cannot be followed by another one: close it.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const e =
    err.code === "HPE_HEADER_OVERFLOW"
      ? ApiError.custom(431, "HEADERS_TOO_LARGE", "request headers are too large")
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ApiError.custom(
            408,
            "REQUEST_TIMEOUT",
            "the request was not received in time (its headers, or the whole request)",
          )
        : ApiError.custom(
            400,
            "MALFORMED_REQUEST",
            `the HTTP request is malformed (${err.code ?? "parse error"})`,
          );
  writeSocketError(socket, e);
}
