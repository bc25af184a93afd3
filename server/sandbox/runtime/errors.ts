// The runtime's errors: SandboxError and its codes.

/**
 * Error codes of the sandbox runtime; the HTTP layer maps them to API errors. BUSY: the operation
 * waited `busyWaitMs` for a sandbox that another operation held (a fork's or snapshot's copy, a
 * freeze, a thaw), or that stayed frozen under a call in progress; or a file read met a write of
 * the same file. Retrying is the remedy.
 */
export type SandboxErrorCode =
  | "NOT_FOUND"
  | "INVALID_PATH"
  | "TOO_LARGE"
  | "INVALID_STATE"
  | "UNAVAILABLE"
  | "NO_DESKTOP"
  | "LIMIT"
  | "BUSY";

export class SandboxError extends Error {
  code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string) {
    super(message);
    this.name = "SandboxError";
    this.code = code;
  }
}
