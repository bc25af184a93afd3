/**
 * The transport under every method: builds the URL from the path pattern of an endpoint of the
 * table (api/endpoints/), sends the request through a keep-alive undici dispatcher, applies the
 * per-request timeout, maps failures to the error classes, retries through retry.ts and parses
 * bodies with the schemas the endpoint declares.
 */
import type { Dispatcher } from "undici";
// undici's Agent and a dispatcher's request, by their own paths: its package entry also loads its
// fetch, cookies and WebSocket, which make Node load its own copy of undici too (undici.d.ts).
// Paths inside a package may move between its minor versions: package.json takes patches only.
import Agent from "undici/lib/dispatcher/agent.js";
import dispatcherRequest from "undici/lib/api/api-request.js";
import type { z } from "zod";
import { answerSchema, routeTemplate, type Endpoint, type JsonEndpoint } from "../api/endpoints/index.ts";
import type { DeploymentType } from "../api/index.ts";
import {
  CwsConnectionError,
  CwsError,
  CwsInvalidResponseError,
  CwsTimeoutError,
  apiError,
  type CwsApiError,
  type RequestInfo,
} from "./errors.ts";
import type { GateOutcome, GatePriority, RateGate } from "./rate-gate.ts";
import { Reachability, reachFailure } from "./reach.ts";
import { parseRetryAfter, withRetries, type RetryInfo, type RetryOptions } from "./retry.ts";
import { strictSchema } from "./strict.ts";
import { REDACTED } from "./diagnosis-text.ts";

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Cancels the request (and any retry sleep); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms; overrides the client's `timeoutMs`. For streams it bounds the wait for the response headers. */
  timeoutMs?: number;
  /** Sends `X-Deployment-Type` (sandbox routes: target the master or shadow deployment). */
  deploymentType?: DeploymentType;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /**
   * Called with the `Retry-After` of a successful answer (ms), when it has one: the service's
   * hint of when to ask again (waiters poll by it).
   */
  onRetryAfter?: (ms: number) => void;
  /** With a rate gate: `poll` (what waiters send) waits behind every other request. */
  priority?: GatePriority;
}

/**
 * One call of an endpoint of the table (api/endpoints/): the endpoint gives the method, the path
 * pattern, whether the token goes with it (not to the endpoints open to anyone) and the schema of
 * a JSON answer; the rest fills it.
 */
export interface Operation<E extends Endpoint = Endpoint> {
  endpoint: E;
  /** Values of the pattern's `:name` parameters; `:org` is filled from the client. */
  params?: Record<string, string>;
  query?: object;
  body?: unknown;
  /** Overrides the default (true for GET, PUT, PATCH, DELETE; false for POST). See retry.ts. */
  idempotent?: boolean;
}

export interface TransportOptions {
  baseUrl: string;
  org: string;
  token: string;
  timeoutMs: number;
  retry: RetryOptions;
  userAgent: string;
  dispatcher?: Dispatcher;
  strictResponses: boolean;
  onRetry?: (info: RetryInfo) => void;
  /** The rate gate every attempt passes through (rate-gate.ts), if any. */
  gate?: RateGate;
  /** How long requests keep retrying a service they cannot reach, in ms (reach.ts). */
  unreachableTimeoutMs: number;
  /** How the user sets the base URL, for the error of a service that cannot be reached. */
  baseUrlSetting: string;
}

const MAX_ERROR_TEXT = 500;

interface Prepared extends RequestInfo {
  url: string;
  idempotent: boolean;
}

interface Received {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
}

export class Transport {
  readonly baseUrl: string;
  readonly org: string;
  #token: string;
  #dispatcher: Dispatcher;
  #ownsDispatcher: boolean;
  #opts: Omit<TransportOptions, "token" | "dispatcher">;
  #reach: Reachability;
  #streams = new Set<{ destroy(err?: Error): unknown }>();
  #closed = false;

  constructor(opts: TransportOptions) {
    const { token, dispatcher, ...rest } = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.org = opts.org;
    this.#token = token;
    this.#opts = rest;
    this.#ownsDispatcher = !dispatcher;
    this.#reach = new Reachability({
      endpoint: this.baseUrl,
      windowMs: opts.unreachableTimeoutMs,
      setting: opts.baseUrlSetting,
    });
    this.#dispatcher =
      dispatcher ?? new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 60_000, connections: 32 });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Authorization header value, for the WebSocket handshake of server-side callers. */
  authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.#token}`, "user-agent": this.#opts.userAgent };
  }

  /** `text` with the token replaced by `[secret]` (for texts the service gave back, which may echo it). */
  scrub(text: string): string {
    return this.#token ? text.split(this.#token).join(REDACTED) : text;
  }

  defaultTimeoutMs(): number {
    return this.#opts.timeoutMs;
  }

  /** Ends open streams and the connections of the client's own dispatcher. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of this.#streams) s.destroy();
    this.#streams.clear();
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** Fills the endpoint's path pattern: `:org` from the client, the rest from `params` (URI-encoded). */
  prepare(op: Operation): Prepared {
    const { method, pattern } = op.endpoint;
    const route = `${method} ${routeTemplate(pattern)}`;
    const path = pattern.replace(/:(\w+)/g, (_, name: string) => {
      const v = name === "org" ? this.org : op.params?.[name];
      if (typeof v !== "string" || v === "")
        throw new TypeError(`${name} must be a non-empty string (${route})`);
      return encodeURIComponent(v);
    });
    const qs = queryString(op.query);
    return {
      method,
      route,
      path,
      url: `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`,
      idempotent: op.idempotent ?? method !== "POST",
    };
  }

  /** A JSON response, parsed with the schema the endpoint declares for its answer. */
  async json<T>(op: Operation<JsonEndpoint<T>>, opts: RequestOptions = {}): Promise<T> {
    const p = this.prepare(op);
    const { status, text } = await this.#withRetries(p, opts, (signal, timeoutMs, answered) =>
      this.#attempt(p, op, opts, signal, timeoutMs, answered, false, async (res) => ({
        status: res.status,
        text: await res.body.text(),
      })),
    );
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new CwsInvalidResponseError({
        ...p,
        status,
        issues: [`body is not JSON: ${truncate(text, 100)}`],
      });
    }
    return this.parse(p, status, answerSchema(op.endpoint), data);
  }

  /** A response without a body we care about (204). */
  async empty(op: Operation, opts: RequestOptions = {}): Promise<void> {
    const p = this.prepare(op);
    await this.#withRetries(p, opts, (signal, timeoutMs, answered) =>
      this.#attempt(p, op, opts, signal, timeoutMs, answered, false, async (res) => {
        await res.body.dump();
      }),
    );
  }

  /** A text/plain response, read whole. */
  async text(op: Operation, opts: RequestOptions = {}): Promise<string> {
    const p = this.prepare(op);
    return this.#withRetries(p, opts, (signal, timeoutMs, answered) =>
      this.#attempt(p, op, opts, signal, timeoutMs, answered, false, (res) => res.body.text()),
    );
  }

  /**
   * A text/plain response as it arrives, decoded as UTF-8 chunk by chunk. The request is sent on
   * the first `next()`. Breaking out of the loop, or aborting `opts.signal`, closes the connection.
   */
  async *stream(op: Operation, opts: RequestOptions = {}): AsyncGenerator<string, void, undefined> {
    const p = this.prepare(op);
    const body = await this.#withRetries(p, opts, (signal, timeoutMs, answered) =>
      this.#attempt(p, op, opts, signal, timeoutMs, answered, true, async (res) => res.body),
    );
    this.#streams.add(body);
    const decoder = new TextDecoder("utf-8");
    try {
      for await (const chunk of body) {
        const s = decoder.decode(chunk as Uint8Array, { stream: true });
        if (s) yield s;
      }
      const tail = decoder.decode();
      if (tail) yield tail;
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (this.#closed)
        throw new CwsConnectionError({
          ...p,
          message: "client was closed during the stream",
          code: "CLIENT_CLOSED",
          sent: true,
          cause: e,
        });
      throw this.#connectionError(p, e, true);
    } finally {
      this.#streams.delete(body);
      if (!body.destroyed) body.destroy();
    }
  }

  /** Parses `data` with `schema` (or its strict copy in strict mode); mismatches name the route and the fields. */
  parse<S extends z.ZodType>(p: RequestInfo, status: number, schema: S, data: unknown): z.output<S> {
    const s = this.#opts.strictResponses ? strictSchema(schema) : schema;
    const r = s.safeParse(data);
    if (r.success) return r.data as z.output<S>;
    const issues = r.error.issues.slice(0, 10).map((i) => `${formatPath(i.path) || "(body)"}: ${i.message}`);
    throw new CwsInvalidResponseError({ ...p, status, issues });
  }

  /** Maps an HTTP error response to its error class. */
  async errorOf(p: RequestInfo, res: Received): Promise<CwsApiError> {
    let text = "";
    try {
      text = await res.body.text();
    } catch {
      // the status alone is enough
    }
    let reason: string | undefined;
    let message: string | undefined;
    try {
      const b = JSON.parse(text) as { error?: unknown; reason?: unknown };
      if (typeof b.error === "string") message = b.error;
      if (typeof b.reason === "string") reason = b.reason;
    } catch {
      message = text ? truncate(text, MAX_ERROR_TEXT) : undefined;
    }
    const requestId = res.headers["x-request-id"];
    return apiError({
      ...p,
      status: res.status,
      reason,
      message,
      requestId: Array.isArray(requestId) ? requestId[0] : requestId,
      retryAfterMs: parseRetryAfter(res.headers["retry-after"]),
    });
  }

  #withRetries<T>(
    p: Prepared,
    opts: RequestOptions,
    run: (
      signal: AbortSignal | undefined,
      timeoutMs: number,
      answered: (outcome: GateOutcome) => void,
    ) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.#opts.timeoutMs;
    const retry =
      opts.maxRetries === undefined ? this.#opts.retry : { ...this.#opts.retry, maxRetries: opts.maxRetries };
    const { gate } = this.#opts;
    const attempt = gate
      ? async (waitSignal: AbortSignal | undefined) => {
          // Each attempt waits for its turn at the gate (until the request's signal, or the retry
          // budget's, aborts) and gives its place back when the answer's headers arrive (a
          // stream's body may flow for long), or when it fails without one.
          const permit = await gate.acquire({ signal: waitSignal, priority: opts.priority });
          try {
            return await run(opts.signal, timeoutMs, (outcome) => permit.release(outcome));
          } finally {
            permit.release();
          }
        }
      : () => run(opts.signal, timeoutMs, () => {});
    return withRetries(
      attempt,
      { ...p, signal: opts.signal, onRetry: this.#opts.onRetry, gated: !!gate, reach: this.#reach },
      retry,
    );
  }

  async #attempt<T>(
    p: Prepared,
    op: Operation,
    opts: RequestOptions,
    userSignal: AbortSignal | undefined,
    timeoutMs: number,
    answered: (outcome: GateOutcome) => void,
    streaming: boolean,
    read: (res: Received) => Promise<T>,
  ): Promise<T> {
    if (this.#closed) {
      throw new CwsConnectionError({ ...p, message: "client is closed", code: "CLIENT_CLOSED", sent: false });
    }
    if (userSignal?.aborted) throw userSignal.reason;
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(new Error("timeout")), timeoutMs);
    const signal = userSignal ? AbortSignal.any([userSignal, timer.signal]) : timer.signal;
    const headers: Record<string, string> = {
      accept: "application/json, text/plain",
      "user-agent": this.#opts.userAgent,
    };
    if (op.endpoint.auth !== "none") headers.authorization = `Bearer ${this.#token}`;
    if (opts.deploymentType) headers["x-deployment-type"] = opts.deploymentType;
    let body: string | undefined;
    if (op.body !== undefined) {
      body = JSON.stringify(op.body);
      headers["content-type"] = "application/json";
    }
    try {
      const url = new URL(p.url);
      const res = await dispatcherRequest.call(this.#dispatcher, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: op.endpoint.method,
        headers,
        body,
        signal,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.#reach.answered();
      answered({ status: res.statusCode, headers: res.headers });
      const received: Received = { status: res.statusCode, headers: res.headers, body: res.body };
      if (res.statusCode >= 400) throw await this.errorOf(p, received);
      if (opts.onRetryAfter && res.headers["retry-after"] !== undefined) {
        const hint = parseRetryAfter(res.headers["retry-after"]);
        if (hint !== undefined) opts.onRetryAfter(hint);
      }
      // A stream's timeout covers the wait for the headers; the body may flow for as long as it lasts.
      if (streaming) clearTimeout(handle);
      return await read(received);
    } catch (e) {
      if (userSignal?.aborted) throw userSignal.reason;
      if (timer.signal.aborted) throw new CwsTimeoutError({ ...p, timeoutMs });
      if (e instanceof CwsError) throw e;
      throw this.#connectionError(p, e, undefined);
    } finally {
      clearTimeout(handle);
    }
  }

  #connectionError(p: RequestInfo, e: unknown, sent: boolean | undefined): CwsConnectionError {
    const err = e as { code?: string; message?: string; errors?: { code?: string }[] };
    const code = err?.code ?? err?.errors?.[0]?.code;
    return new CwsConnectionError({
      ...p,
      message: `connection failed: ${err?.message || code || String(e)}`,
      code,
      sent: sent ?? reachFailure(code) === undefined,
      cause: e,
    });
  }
}

/** Serializes a query object: undefined/null skipped, arrays repeated, booleans as true/false. */
export function queryString(query: object | undefined): string {
  if (!query) return "";
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) q.append(k, String(item));
  }
  return q.toString();
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const k of path) out += typeof k === "number" ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
