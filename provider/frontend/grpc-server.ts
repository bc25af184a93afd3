/**
 * A gRPC server of unary calls over Node's own HTTP/2, for both plugins: the OpenTofu provider's
 * go-plugin serving and the Pulumi plugin's ResourceProvider service. Every call either answers
 * is unary (tfplugin6's, go-plugin's controller Shutdown, gRPC's health Check; Pulumi's provider
 * RPCs), and for those this does what a gRPC server does, without loading a gRPC library (which
 * would be a third of a plugin's start, and most of a call's overhead): one length-prefixed
 * protobuf message in (gzip or deflate when the client compresses it), one out, the status in the
 * trailers (with its details when an error has them); UNIMPLEMENTED for any other method
 * (go-plugin's broker and stdio streams, which OpenTofu opens and does without; the Pulumi
 * engine's optional RPCs such as Handshake or GetMapping), as a gRPC server does for a method it
 * does not serve. Mutual TLS when given a key pair and the one client certificate to trust, else
 * plaintext HTTP/2 (h2c).
 */
import http2 from "node:http2";
import { gunzipSync, inflateSync } from "node:zlib";

/** The gRPC status codes this server answers with. */
export const Status = { OK: 0, UNKNOWN: 2, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** A method as a service definition has it: its path and its codec. */
export interface UnaryMethod {
  path: string;
  /** Streaming methods are not served (UNIMPLEMENTED). */
  requestStream?: boolean;
  responseStream?: boolean;
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(value: unknown): Buffer;
}

/**
 * What a handler learns of its call besides the request. A handler answers with the response's
 * value, or with the response message already encoded (a Buffer), which is sent as it is.
 */
export interface CallInfo {
  /** Settles once the answer has been sent and the call is over (or the client went away). */
  done: Promise<void>;
}

export type UnaryHandler = (request: unknown, call: CallInfo) => unknown;

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

/** The one message of a unary request's body. */
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

export class UnaryServer {
  readonly #routes = new Map<string, { method: UnaryMethod; handler: UnaryHandler }>();
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
   * Serves the unary methods of `service` that `handlers` has (by the method's name in the
   * service); a method with a stream on either side is left UNIMPLEMENTED.
   */
  add(service: Record<string, UnaryMethod>, handlers: Record<string, UnaryHandler>): void {
    for (const [name, method] of Object.entries(service)) {
      const handler = handlers[name] as UnaryHandler | undefined;
      if (handler && !method.requestStream && !method.responseStream)
        this.#routes.set(method.path, { method, handler });
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
    stream.on("close", settle);
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
      Promise.resolve()
        .then(() => {
          const request = route.method.requestDeserialize(
            unframe(Buffer.concat(chunks, size), encoding as string),
          );
          return route.handler(request, { done });
        })
        .then((response) => (Buffer.isBuffer(response) ? response : route.method.responseSerialize(response)))
        .then(
          (bytes) => this.#respond(stream, bytes),
          (e: unknown) =>
            this.#status(
              stream,
              e instanceof StatusError ? e.code : Status.UNKNOWN,
              e instanceof Error ? e.message : String(e),
              e instanceof StatusError ? e.details : undefined,
            ),
        );
    });
  }

  #respond(stream: http2.ServerHttp2Stream, message: Buffer): void {
    if (stream.destroyed || stream.closed) return;
    stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(Status.OK) }));
    stream.end(frame(message));
  }

  /**
   * A response with no message: the status alone, in the headers (gRPC's trailers-only form); a
   * binary header's value in base64, as gRPC sends it.
   */
  #status(stream: http2.ServerHttp2Stream, code: number, message: string, details?: Uint8Array): void {
    if (stream.destroyed || stream.closed || stream.headersSent) return;
    stream.respond(
      {
        ...RESPONSE_HEADERS,
        "grpc-status": String(code),
        "grpc-message": encodeURIComponent(message),
        ...(details ? { "grpc-status-details-bin": Buffer.from(details).toString("base64") } : {}),
      },
      { endStream: true },
    );
  }
}
