import type { z } from "zod";
import { REASONS, zodViolations, type Reason, type Violation } from "../../api/index.ts";

/** An error answered as `{ error, reason }` with the status the reason code carries. */
export class ApiError extends Error {
  readonly reason: Reason | string;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    reason: Reason,
    message: string,
    opts: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.reason = reason;
    this.status = opts.status ?? REASONS[reason];
    this.headers = opts.headers ?? {};
  }

  /** An error whose reason is not one of REASONS (e.g. an injected fault with a custom reason). */
  static custom(
    status: number,
    reason: string,
    message: string,
    headers: Record<string, string> = {},
  ): ApiError {
    const e = new ApiError("INTERNAL_ERROR", message, { status, headers });
    (e as { reason: string }).reason = reason;
    return e;
  }
}

/** The first violation's reason, every violation's message. */
export function violationError(violations: readonly Violation[]): ApiError {
  const first = violations[0]!;
  return new ApiError(first.reason, violations.map((v) => v.message).join("; "));
}

export function zodError(error: z.ZodError, reason: Reason): ApiError {
  return violationError(zodViolations(error, reason));
}

export function notFound(reason: Reason, what: string, uid: string): ApiError {
  return new ApiError(reason, `${what} ${uid} not found`);
}
