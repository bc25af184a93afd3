/**
 * Typed client of the Compute Workload Service. Wire types come from `pulumi-cws/api`;
 * docs/client.md covers errors, retries, timeouts, waiters, pagination and parsing.
 */
export { CwsClient, DEFAULT_TIMEOUT_MS, VERSION, type CwsClientOptions } from "./client.ts";
export type { RequestOptions } from "./http.ts";
export {
  CwsError,
  CwsRequestError,
  CwsApiError,
  CwsValidationError,
  CwsAuthError,
  CwsNotFoundError,
  CwsConflictError,
  CwsRateLimitError,
  CwsServerError,
  CwsConnectionError,
  CwsTimeoutError,
  CwsInvalidResponseError,
  CwsWaitError,
  CwsWaitTimeoutError,
  CwsWorkloadFailedError,
  CwsTemplateFailedError,
  isApiError,
  isNotFound,
  isConflict,
  isValidationError,
  isAuthError,
  isRateLimited,
  isServerError,
  isConnectionError,
  isTimeout,
  isAmbiguous,
  hasReason,
  type RequestInfo,
} from "./errors.ts";
export {
  DEFAULT_RETRY,
  isRetryable,
  parseRetryAfter,
  retryDelayMs,
  withRetryBudget,
  type RetryBudget,
  type RetryInfo,
  type RetryOptions,
} from "./retry.ts";
export {
  CwsUnreachableError,
  DEFAULT_UNREACHABLE_TIMEOUT_MS,
  unreachableStatus,
  type UnreachableRetry,
} from "./reach.ts";
export {
  RateGate,
  sharedRateGate,
  type GateClock,
  type GateOutcome,
  type GatePermit,
  type GatePriority,
  type GateStats,
  type RateGateOptions,
} from "./rate-gate.ts";
export { paginate } from "./pagination.ts";
export type { WaitOptions } from "./waiters.ts";
export {
  Workloads,
  type EventsQuery,
  type LogsOptions,
  type WaitProgress,
  type WorkloadWaitOptions,
} from "./workloads.ts";
export {
  DIAGNOSIS_BUDGET_MS,
  DIAGNOSIS_EVENTS,
  DIAGNOSIS_LINE_MAX,
  DIAGNOSIS_LOG_LINES,
  REDACTED,
  formatDiagnosis,
  printable,
  redact,
  type DiagnosisEvent,
  type WaitDiagnosis,
} from "./diagnosis-text.ts";
export { progressLine } from "./wait-progress.ts";
export { Sandboxes, type ConnectOptions, type DesktopConnectOptions } from "./sandboxes.ts";
export { SandboxTemplates, type SandboxTemplateStatus } from "./sandbox-templates.ts";
export { Templates } from "./templates.ts";
export { Volumes } from "./volumes.ts";
export { SshKeys } from "./ssh-keys.ts";
export { Meta } from "./meta.ts";
export { strictSchema } from "./strict.ts";
