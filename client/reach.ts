/**
 * Whether the service can be reached at all, and for how long the client keeps trying when it
 * cannot. A refused connection, an unknown host or a connect timeout means the request never left
 * this machine: it is retried (even a create), but only within the unreachable window (default
 * 20 s) counted from the first such failure since the service last answered. Past it, every
 * request fails at once with `CwsUnreachableError`, which names the endpoint, the cause and the
 * setting to check, until an answer of any status shows the service is back. A TLS failure (a
 * certificate the client does not trust, plain HTTP on an https URL) does not fix itself: it
 * fails at the first attempt.
 *
 * So a typo in the base URL fails an operation within the window instead of its whole timeout,
 * and a service that restarts within the window is waited out as before.
 */
import { CwsConnectionError, type RequestInfo } from "./errors.ts";

export const DEFAULT_UNREACHABLE_TIMEOUT_MS = 20_000;

/** Less than this left of the window, no further attempt is made. */
const MIN_LAST_STEP_MS = 100;

/** Error codes of a connection that was never made: the request never reached the service. */
const NOT_REACHED: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "unknown host",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "connect timeout",
};

/** Error codes of a TLS handshake that failed (OpenSSL's verification codes, Node's TLS and SSL codes). */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|EPROTO$)/;

/** OpenSSL's reason in its error line (`...:SSL routines:func:wrong version number:file:line:`), else the message's first line. */
function tlsReason(message: string | undefined): string | undefined {
  if (!message) return undefined;
  return /SSL routines:[^:]*:([^:]+):/.exec(message)?.[1] ?? message.split("\n")[0]!.trim();
}

/** What kind of failure to reach the service `code` is, if any. */
export function reachFailure(code: string | undefined): "not-reached" | "tls" | undefined {
  if (code === undefined) return undefined;
  if (code in NOT_REACHED) return "not-reached";
  return TLS_CODE.test(code) ? "tls" : undefined;
}

/** The cause in words, with its code: `connection refused (ECONNREFUSED)`. */
export function reachCause(code: string | undefined, message?: string): string {
  if (code && NOT_REACHED[code]) return `${NOT_REACHED[code]} (${code})`;
  if (reachFailure(code) === "tls") return `TLS failed: ${tlsReason(message) || code} (${code})`;
  return message || code || "connection failed";
}

/** The service could not be reached within the unreachable window, or its TLS handshake failed. */
export class CwsUnreachableError extends CwsConnectionError {
  override name = "CwsUnreachableError";
  /** The base URL the client was given. */
  readonly endpoint: string;
  /** How long the client kept trying, in ms (0 for a TLS failure). */
  readonly waitedMs: number;

  constructor(
    init: RequestInfo & { endpoint: string; code?: string; cause: string; waitedMs: number; setting: string },
  ) {
    const tls = reachFailure(init.code) === "tls";
    const tried = init.waitedMs > 0 ? `, after ${Math.round(init.waitedMs / 1000)} s of retrying` : "";
    super({
      ...init,
      message:
        `cannot reach the service at ${init.endpoint}: ${init.cause}${tried}; check ${init.setting}` +
        (tls
          ? " and the service's certificate (NODE_EXTRA_CA_CERTS names a private CA)"
          : " and that the service is running there"),
      sent: false,
      cause: undefined,
    });
    this.endpoint = init.endpoint;
    this.waitedMs = init.waitedMs;
  }
}

/** How a retry of an unreachable service is said (status lines): endpoint, cause, time left. */
export interface UnreachableRetry {
  endpoint: string;
  cause: string;
  /** Ms left in the unreachable window after this retry's sleep. */
  leftMs: number;
}

/** A retry of an unreachable service: how it is said, and the sleep before it (never past the window). */
export interface UnreachableStep {
  retry: UnreachableRetry;
  delayMs: number;
}

/** A retry of an unreachable service: how it is said, and the sleep before it (never past the window). */
export interface UnreachableStep {
  retry: UnreachableRetry;
  delayMs: number;
}

/** The words of a status line while the client retries an unreachable service. */
export function unreachableStatus(u: UnreachableRetry): string {
  return `cannot reach the service at ${u.endpoint} (${u.cause}); retrying for up to ${Math.max(1, Math.ceil(u.leftMs / 1000))} s more`;
}

/**
 * One client's view of whether its service answers: since when it has not (the first failure to
 * reach it since its last answer), and the window after which requests give up.
 */
export class Reachability {
  readonly #endpoint: string;
  readonly #windowMs: number;
  readonly #setting: string;
  #downSince: number | undefined;

  constructor(opts: { endpoint: string; windowMs: number; setting: string }) {
    this.#endpoint = redactUserinfo(opts.endpoint);
    this.#windowMs = opts.windowMs;
    this.#setting = opts.setting;
  }

  /** An answer arrived (any status): the service is reachable. */
  answered(): void {
    this.#downSince = undefined;
  }

  /**
   * For a failed attempt: undefined when it is not a failure to reach the service; else the error
   * to fail with now (a TLS failure, or a window that has ended), or the next retry: its status
   * words and its sleep, `delayMs` cut short so that the last attempt is made as the window ends.
   */
  judge(error: unknown, delayMs: number): { fail: CwsUnreachableError } | UnreachableStep | undefined {
    if (!(error instanceof CwsConnectionError) || error instanceof CwsUnreachableError) return undefined;
    const kind = reachFailure(error.code);
    if (!kind) return undefined;
    const now = Date.now();
    this.#downSince ??= now;
    const cause = reachCause(error.code, causeMessage(error));
    const remaining = this.#downSince + this.#windowMs - now;
    if (kind === "tls" || remaining < MIN_LAST_STEP_MS)
      return { fail: this.#error(error, cause, kind === "tls" ? 0 : now) };
    const delay = Math.min(delayMs, remaining);
    return { retry: { endpoint: this.#endpoint, cause, leftMs: remaining - delay }, delayMs: delay };
  }

  /** The error that ends the retries of `error` for another reason (count, deadline), when it is a failure to reach. */
  final(error: unknown): unknown {
    if (!(error instanceof CwsConnectionError) || error instanceof CwsUnreachableError) return error;
    const kind = reachFailure(error.code);
    if (!kind) return error;
    return this.#error(error, reachCause(error.code, causeMessage(error)), kind === "tls" ? 0 : Date.now());
  }

  #error(error: CwsConnectionError, cause: string, now: number): CwsUnreachableError {
    return new CwsUnreachableError({
      method: error.method,
      route: error.route,
      path: error.path,
      endpoint: this.#endpoint,
      code: error.code,
      cause,
      waitedMs: now && this.#downSince !== undefined ? now - this.#downSince : 0,
      setting: this.#setting,
    });
  }
}

/** The low-level message of a connection error (undici's, without the client's decoration). */
function causeMessage(error: CwsConnectionError): string | undefined {
  const c = error.cause as { message?: string } | undefined;
  return c?.message;
}

function redactUserinfo(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.href.replace(/\/+$/, "");
  } catch {
    return url;
  }
}
