// The runtime's errors: SandboxError and its codes.

/** Error codes of the sandbox runtime; the HTTP layer maps them to API errors. */
export type SandboxErrorCode =
  "NOT_FOUND" | "INVALID_PATH" | "TOO_LARGE" | "INVALID_STATE" | "UNAVAILABLE" | "NO_DESKTOP" | "LIMIT";

export class SandboxError extends Error {
  code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string) {
    super(message);
    this.name = "SandboxError";
    this.code = code;
  }
}
