/**
 * A gRPC server over Node's own HTTP/2, for both plugins: the OpenTofu provider's go-plugin
 * serving and the Pulumi plugin's ResourceProvider service. It serves unary calls (tfplugin6's,
 * go-plugin's controller Shutdown, gRPC's health Check; Pulumi's provider RPCs) and server
 * streams (tfplugin6's ListResource and InvokeAction), and for those does what a gRPC server
 * does, without loading a gRPC library (which would be a third of a plugin's start, and most of a
 * call's overhead): one length-prefixed protobuf message in (gzip or deflate when the client
 * compresses it); one out, or for a server stream each message as the handler yields it (waiting
 * while the client reads slower than the handler yields); the status in the trailers (with its
 * details when an error has them). A client-streaming method, and any method without a handler
 * (go-plugin's broker and stdio streams, which OpenTofu opens and does without; the Pulumi
 * engine's optional RPCs such as Handshake or GetMapping), is UNIMPLEMENTED, as a gRPC server
 * answers a method it does not serve. Mutual TLS when given a key pair and the one client
 * certificate to trust, else plaintext HTTP/2 (h2c).
 */
import http2 from "node:http2";
import { gunzipSync, inflateSync } from "node:zlib";

/** The gRPC status codes this server answers with. */
export const Status = { OK: 0, UNKNOWN: 2, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** A method as a service definition has it: its path, its codec, and which side streams. */
export interface GrpcMethod {
  path: string;
  /** A client-streaming method is not served (UNIMPLEMENTED). */
  requestStream?: boolean;
  /** A server stream: the handler answers with the messages to send, in order. */
  responseStream?: boolean;
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(value: unknown): Buffer;
}

/** What a handler learns of its call besides the request. */
export interface CallInfo {
  /** Settles once the answer has been sent and the call is over (or the client went away). */
  done: Promise<void>;
  /** Aborted when the client cancels the call or goes away before the answer is complete. */
  signal: AbortSignal;
}

/**
 * A method's handler. For a unary method it answers with the response's value, or with the
 * response message already encoded (a Buffer), which is sent as it is. For a server stream it
 * answers with an iterable or async iterable of such messages: each is sent as it comes, and the
 * stream ends with status OK once the iterable ends, or with the error it throws (as a unary
 * handler's error). A client that cancels ends the iteration (the iterator's `return`).
 */
export type GrpcHandler = (request: unknown, call: CallInfo) => unknown;

/** The adapter method that answers an RPC: `GetProviderSchema` → `getProviderSchema`. */
export const rpcMethodName = (rpc: string) => rpc.charAt(0).toLowerCase() + rpc.slice(1);

/**
 * A plugin's adapter as its handlers reach it: `adapter` itself, or what loads it, then called by
 * the first call that needs it (so that the handshake line does not wait for it) and only once.
 */
export function adapterOnFirstCall<T extends object>(adapter: T | (() => Promise<T>)): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= typeof adapter === "function" ? adapter() : Promise.resolve(adapter));
}

export interface TlsOptions {
  keyPem: string;
  certPem: string;
  /** The only client certificate accepted. */
  clientCertPem: string;
}

/**
 * An error a handler throws to answer with that status (anything else is UNKNOWN); `details`, an
 * encoded google.rpc.Status, goes in the trailers as `grpc-status-details-bin` (how a gRPC error
 * carries more than its message: the Pulumi engine reads a resource's partial state from it).
 */
export class StatusError extends Error {
  readonly code: number;
  readonly details: Uint8Array | undefined;
  constructor(code: number, message: string, details?: Uint8Array) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

const RESPONSE_HEADERS = { ":status": 200, "content-type": "application/grpc+proto" };

/** A message framed as gRPC sends it: no compression, its length, the bytes. */
function frame(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/** The one message of a request's body (unary, or the request of a server stream). */
function unframe(body: Buffer, encoding: string | undefined): Buffer {
  if (body.length < 5) throw new StatusError(Status.INTERNAL, "no request message");
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) throw new StatusError(Status.INTERNAL, "not exactly one request message");
  const message = body.subarray(5);
  if (body[0] === 0) return message;
  if (encoding === "gzip") return gunzipSync(message);
  if (encoding === "deflate") return inflateSync(message);
  throw new StatusError(Status.INTERNAL, `request compressed with ${encoding ?? "an unnamed encoding"}`);
}

/** The messages a server-streaming handler answers with, however it gives them. */
function messagesOf(answer: unknown): AsyncIterable<unknown> | Iterable<unknown> {
  const a = answer as Partial<AsyncIterable<unknown> & Iterable<unknown>> | null;
  if (a && (typeof a[Symbol.asyncIterator] === "function" || typeof a[Symbol.iterator] === "function"))
    return a as AsyncIterable<unknown>;
  throw new StatusError(Status.INTERNAL, "a server-streaming handler answered without messages to stream");
}

/** A status error's trailers (or trailers-only headers): its code, its message, its details. */
function statusFields(code: number, message: string, details?: Uint8Array): Record<string, string> {
  return {
    "grpc-status": String(code),
    "grpc-message": encodeURIComponent(message),
    // A binary header's value in base64, as gRPC sends it.
    ...(details ? { "grpc-status-details-bin": Buffer.from(details).toString("base64") } : {}),
  };
}

/** The status a handler's error answers with: a StatusError's, else UNKNOWN with its message. */
function errorStatus(e: unknown): [number, string, Uint8Array | undefined] {
  return e instanceof StatusError
    ? [e.code, e.message, e.details]
    : [Status.UNKNOWN, e instanceof Error ? e.message : String(e), undefined];
}

export class GrpcServer {
  readonly #routes = new Map<string, { method: GrpcMethod; handler: GrpcHandler }>();
  readonly #server: http2.Http2Server | http2.Http2SecureServer;
  readonly #sessions = new Set<http2.ServerHttp2Session>();
  readonly #maxMessageBytes: number;

  constructor(opts: { tls?: TlsOptions; maxMessageBytes: number }) {
    this.#maxMessageBytes = opts.maxMessageBytes;
    // Session memory (MB) holds the calls in flight: OpenTofu sends several at once, some large.
    const settings = { maxSessionMemory: Math.max(16, Math.ceil((4 * opts.maxMessageBytes) / 2 ** 20)) };
    this.#server = opts.tls
      ? http2.createSecureServer({
          ...settings,
          key: opts.tls.keyPem,
          cert: opts.tls.certPem,
          ca: opts.tls.clientCertPem,
          requestCert: true,
          rejectUnauthorized: true,
        })
      : http2.createServer(settings);
    this.#server.on("session", (s: http2.ServerHttp2Session) => {
      this.#sessions.add(s);
      s.on("close", () => this.#sessions.delete(s));
      s.on("error", () => {}); // a client that goes away: its calls end with it
    });
    this.#server.on("stream", (stream, headers) => this.#call(stream, headers));
  }

  /**
   * Serves the methods of `service` that `handlers` has (by the method's name in the service),
   * unary and server-streaming; a client-streaming method is left UNIMPLEMENTED.
   */
  add(service: Record<string, GrpcMethod>, handlers: Record<string, GrpcHandler>): void {
    for (const [name, method] of Object.entries(service)) {
      const handler = handlers[name] as GrpcHandler | undefined;
      if (handler && !method.requestStream) this.#routes.set(method.path, { method, handler });
    }
  }

  /** Listens on a free port of `host`; resolves to the port. */
  listen(host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(0, host, () => {
        this.#server.off("error", reject);
        resolve((this.#server.address() as { port: number }).port);
      });
    });
  }

  /** Stops listening and drops every connection and call at once. */
  forceShutdown(): void {
    this.#server.close();
    for (const s of this.#sessions) s.destroy();
  }

  #call(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    const cancel = new AbortController();
    let answered = false;
    stream.on("close", () => {
      // Closed before the answer was complete: the client cancelled, reset or went away.
      if (!answered) cancel.abort();
      settle();
    });
    stream.on("error", () => {}); // reset by the client
    const contentType = headers["content-type"];
    if (headers[":method"] !== "POST" || !contentType?.startsWith("application/grpc")) {
      stream.respond({ ":status": 415 }, { endStream: true });
      return;
    }
    const route = this.#routes.get(headers[":path"] ?? "");
    if (!route) {
      this.#status(
        stream,
        Status.UNIMPLEMENTED,
        `The server does not implement the method ${headers[":path"]}`,
      );
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= this.#maxMessageBytes + 5) chunks.push(chunk);
    });
    stream.on("end", () => {
      if (size > this.#maxMessageBytes + 5) {
        this.#status(stream, Status.RESOURCE_EXHAUSTED, `request larger than ${this.#maxMessageBytes} bytes`);
        return;
      }
      const encoding = headers["grpc-encoding"];
      const { method, handler } = route;
      const encode = (m: unknown) => (Buffer.isBuffer(m) ? m : method.responseSerialize(m));
      Promise.resolve()
        .then(() => {
          const request = method.requestDeserialize(unframe(Buffer.concat(chunks, size), encoding as string));
          return handler(request, { done, signal: cancel.signal });
        })
        .then((answer) =>
          method.responseStream
            ? this.#stream(stream, messagesOf(answer), encode)
            : this.#respond(stream, encode(answer)),
        )
        .catch((e: unknown) => this.#fail(stream, ...errorStatus(e)))
        .finally(() => (answered = true));
    });
  }

  #respond(stream: http2.ServerHttp2Stream, message: Buffer): void {
    if (stream.destroyed || stream.closed) return;
    stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(Status.OK) }));
    stream.end(frame(message));
  }

  /**
   * A server stream: the headers, then each message as the handler yields it (the next is not
   * asked for while the client has not taken the last), then status OK in the trailers. An error
   * the iteration throws ends the stream with its status instead; a client that goes away ends
   * the iteration.
   */
  async #stream(
    stream: http2.ServerHttp2Stream,
    messages: AsyncIterable<unknown> | Iterable<unknown>,
    encode: (m: unknown) => Buffer,
  ): Promise<void> {
    for await (const m of messages) {
      if (stream.destroyed || stream.closed) return; // leaving the loop ends the iteration
      if (!stream.headersSent) stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
      if (!stream.write(frame(encode(m)))) await drained(stream);
    }
    if (stream.destroyed || stream.closed) return;
    if (!stream.headersSent) stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(Status.OK) }));
    stream.end();
  }

  /**
   * An error's status: in the trailers when messages went out before it, else alone in the
   * headers (gRPC's trailers-only form).
   */
  #fail(stream: http2.ServerHttp2Stream, code: number, message: string, details?: Uint8Array): void {
    if (stream.destroyed || stream.closed) return;
    if (!stream.headersSent) return this.#status(stream, code, message, details);
    stream.once("wantTrailers", () => stream.sendTrailers(statusFields(code, message, details)));
    stream.end();
  }

  /** A response with no message: the status alone, in the headers (gRPC's trailers-only form). */
  #status(stream: http2.ServerHttp2Stream, code: number, message: string, details?: Uint8Array): void {
    if (stream.destroyed || stream.closed || stream.headersSent) return;
    stream.respond({ ...RESPONSE_HEADERS, ...statusFields(code, message, details) }, { endStream: true });
  }
}

/** Resolves once `stream` takes more data, or is gone (then the caller sees it closed). */
function drained(stream: http2.ServerHttp2Stream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}
