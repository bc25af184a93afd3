/**
 * Errors thrown by the client. Every error is a `CwsError`; HTTP failures are `CwsApiError`
 * subclasses chosen by status, so callers can branch with `instanceof` or the `is*` helpers.
 *
 * No error ever carries the API token: messages are built from the method, the route, the
 * response status and the service's error body only, and request headers are never attached.
 */
import type { Reason } from "../api/index.ts";
import { formatDiagnosis, type WaitDiagnosis } from "./diagnosis-text.ts";

/** Where a request went: `route` is the template (`PATCH /orgs/{org}/workloads/{uid}`), `path` the concrete path. */
export interface RequestInfo {
  method: string;
  /** Route template with the method, e.g. `GET /orgs/{org}/workloads/{uid}`. */
  route: string;
  /** Concrete path below the base URL, without the query string. */
  path: string;
}

/** Base class of every error this client throws. */
export class CwsError extends Error {
  override name = "CwsError";
}

/** An error about one request: where it went. */
export class CwsRequestError extends CwsError {
  override name = "CwsRequestError";
  readonly method: string;
  readonly route: string;
  readonly path: string;

  constructor(message: string, info: RequestInfo, options?: ErrorOptions) {
    super(message, options);
    this.method = info.method;
    this.route = info.route;
    this.path = info.path;
  }
}

export interface ApiErrorInit extends RequestInfo {
  status: number;
  reason?: string;
  message?: string;
  requestId?: string;
  retryAfterMs?: number;
}

/** The service answered with a non-2xx status. */
export class CwsApiError extends CwsRequestError {
  override name = "CwsApiError";
  /** HTTP status code. */
  readonly status: number;
  /** Machine-readable reason code from the error body (`UNKNOWN` when the body had none). */
  readonly reason: Reason | (string & {});
  /** The service's own message (without the status/route decoration of `message`). */
  readonly serviceMessage: string;
  /** Value of the `x-request-id` response header, when the service sent one. */
  readonly requestId: string | undefined;

  constructor(init: ApiErrorInit) {
    const reason = init.reason || "UNKNOWN";
    const text = init.message || `HTTP ${init.status}`;
    super(`${init.status} ${reason}: ${text} (${init.method} ${init.path})`, init);
    this.status = init.status;
    this.reason = reason;
    this.serviceMessage = text;
    this.requestId = init.requestId;
  }
}

/** 400, 413, 415: the request was refused as invalid (body, query, path, state or size). */
export class CwsValidationError extends CwsApiError {
  override name = "CwsValidationError";
}
/** 401, 403: missing or wrong credentials, or an operation the token may not perform. */
export class CwsAuthError extends CwsApiError {
  override name = "CwsAuthError";
}
/** 404: the resource (or route) does not exist. */
export class CwsNotFoundError extends CwsApiError {
  override name = "CwsNotFoundError";
}
/** 409: the resource is not in a state that allows the operation. */
export class CwsConflictError extends CwsApiError {
  override name = "CwsConflictError";
}
/** An error after which the service may say when to try again: `retryAfterMs` holds its Retry-After, if any. */
abstract class CwsRetryAfterError extends CwsApiError {
  readonly retryAfterMs: number | undefined;
  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
/** 429: rate or session limit reached. */
export class CwsRateLimitError extends CwsRetryAfterError {
  override name = "CwsRateLimitError";
}
/** 5xx: the service failed (500), its gateway failed (502, 504) or it had no capacity (503). */
export class CwsServerError extends CwsRetryAfterError {
  override name = "CwsServerError";
}

/** The subclass of `CwsApiError` for a status. */
export function apiError(init: ApiErrorInit): CwsApiError {
  const s = init.status;
  if (s === 400 || s === 413 || s === 415) return new CwsValidationError(init);
  if (s === 401 || s === 403) return new CwsAuthError(init);
  if (s === 404) return new CwsNotFoundError(init);
  if (s === 409) return new CwsConflictError(init);
  if (s === 429) return new CwsRateLimitError(init);
  if (s >= 500) return new CwsServerError(init);
  return new CwsApiError(init);
}

export interface ConnectionErrorInit extends RequestInfo {
  message: string;
  /** Low-level error code (`ECONNRESET`, `UND_ERR_SOCKET`, ...), when known. */
  code?: string;
  /**
   * False when the request certainly never reached the service (connection refused, DNS
   * failure, connect timeout), true when it may have (reset or timeout after sending).
   */
  sent: boolean;
  cause?: unknown;
}

/** No HTTP response: the connection failed, was reset, or the client is closed. */
export class CwsConnectionError extends CwsRequestError {
  override name = "CwsConnectionError";
  readonly code: string | undefined;
  /** Whether the service may have received (and acted on) the request. */
  readonly sent: boolean;

  constructor(init: ConnectionErrorInit) {
    super(
      `${init.message} (${init.method} ${init.path})`,
      init,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.code = init.code;
    this.sent = init.sent;
  }
}

/** The per-request timeout (`timeoutMs`) elapsed before the response was complete. */
export class CwsTimeoutError extends CwsConnectionError {
  override name = "CwsTimeoutError";
  readonly timeoutMs: number;
  constructor(init: Omit<ConnectionErrorInit, "message" | "sent"> & { timeoutMs: number }) {
    super({
      ...init,
      message: `request timed out after ${init.timeoutMs} ms`,
      sent: true,
      code: init.code ?? "ETIMEDOUT",
    });
    this.timeoutMs = init.timeoutMs;
  }
}

/** A 2xx response whose body does not match the contract (not JSON, or a field of the wrong shape). */
export class CwsInvalidResponseError extends CwsRequestError {
  override name = "CwsInvalidResponseError";
  readonly status: number;
  /** One line per mismatch: `items[0].state.status: expected one of ...`. */
  readonly issues: string[];
  constructor(init: RequestInfo & { status: number; issues: string[] }) {
    super(
      `invalid response from ${init.method} ${init.path} (${init.route}): ${init.issues.join("; ")}`,
      init,
    );
    this.status = init.status;
    this.issues = init.issues;
  }
}

/** Base class of the waiter errors (`waitForStatus`). */
export class CwsWaitError extends CwsError {
  override name = "CwsWaitError";
  /** UID of the workload or template waited on. */
  readonly uid: string;
  /** Statuses that would have ended the wait successfully. */
  readonly target: string[];
  /** Last status observed, if any poll succeeded. */
  readonly lastStatus: string | undefined;
  /**
   * What the service recorded of the failure (workloads: the last events of the deployment and
   * the last log lines, secrets redacted), when it was gathered; its text follows the first line
   * of `message`.
   */
  diagnosis: WaitDiagnosis | undefined;
  constructor(
    message: string,
    init: { uid: string; target: string[]; lastStatus?: string; cause?: unknown },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.uid = init.uid;
    this.target = init.target;
    this.lastStatus = init.lastStatus;
  }

  /** Sets the diagnosis and puts its text under the first line of the message. */
  attachDiagnosis(d: WaitDiagnosis): this {
    this.diagnosis = d;
    const first = this.message.split("\n")[0]!;
    this.message = `${first}\n${formatDiagnosis(d, first)}`;
    return this;
  }
}

/** The deadline passed before the resource reached a target status. */
export class CwsWaitTimeoutError extends CwsWaitError {
  override name = "CwsWaitTimeoutError";
  readonly timeoutMs: number;
  constructor(init: {
    kind: string;
    uid: string;
    target: string[];
    lastStatus?: string;
    timeoutMs: number;
    cause?: unknown;
  }) {
    super(
      `timed out after ${init.timeoutMs} ms waiting for ${init.kind} ${init.uid} to reach ${init.target.join(" or ")}` +
        ` (last status: ${init.lastStatus ?? "unknown"})`,
      init,
    );
    this.timeoutMs = init.timeoutMs;
  }
}

/** A workload reached `error` (or `deleted`) while being waited on; `serviceMessage` is the service's state message. */
export class CwsWorkloadFailedError extends CwsWaitError {
  override name = "CwsWorkloadFailedError";
  readonly serviceMessage: string;
  constructor(init: { uid: string; target: string[]; lastStatus: string; serviceMessage: string }) {
    super(
      `workload ${init.uid} became ${init.lastStatus} while waiting for ${init.target.join(" or ")}` +
        (init.serviceMessage ? `: ${init.serviceMessage}` : ""),
      init,
    );
    this.serviceMessage = init.serviceMessage;
  }
}

/** A sandbox template became FAILED while being waited on. */
export class CwsTemplateFailedError extends CwsWaitError {
  override name = "CwsTemplateFailedError";
  constructor(init: { uid: string; target: string[]; lastStatus: string }) {
    super(
      `sandbox template ${init.uid} became ${init.lastStatus} while waiting for ${init.target.join(" or ")}`,
      init,
    );
  }
}

const statusIs = (e: unknown, ...codes: number[]) => e instanceof CwsApiError && codes.includes(e.status);

export const isApiError = (e: unknown): e is CwsApiError => e instanceof CwsApiError;
export const isNotFound = (e: unknown): e is CwsNotFoundError => statusIs(e, 404);
export const isConflict = (e: unknown): e is CwsConflictError => statusIs(e, 409);
export const isValidationError = (e: unknown): e is CwsValidationError => statusIs(e, 400, 413, 415);
export const isAuthError = (e: unknown): e is CwsAuthError => statusIs(e, 401, 403);
export const isRateLimited = (e: unknown): e is CwsRateLimitError => statusIs(e, 429);
export const isServerError = (e: unknown): e is CwsServerError => e instanceof CwsApiError && e.status >= 500;
export const isConnectionError = (e: unknown): e is CwsConnectionError => e instanceof CwsConnectionError;
export const isTimeout = (e: unknown): e is CwsTimeoutError | CwsWaitTimeoutError =>
  e instanceof CwsTimeoutError || e instanceof CwsWaitTimeoutError;
/** True when `e` is an API error with this reason code. */
export const hasReason = (e: unknown, reason: Reason | (string & {})): e is CwsApiError =>
  e instanceof CwsApiError && e.reason === reason;
/**
 * True when the outcome of the failed request is unknown: the service may have acted on it
 * (connection lost after sending, timeout, 500/502/504). Look the resource up before repeating a create.
 */
export const isAmbiguous = (e: unknown): boolean =>
  (e instanceof CwsConnectionError && e.sent) || statusIs(e, 500, 502, 504);
