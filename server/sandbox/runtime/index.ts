// The sandbox runtime: real isolated Linux environments on the host, made with bubblewrap (see
// ../README.md). A library of its own: it imports only its own files and Node's built-ins, and
// the server imports it only through this file, its public surface.

export {
  EXEC_TIMEOUT_CODE,
  SandboxRuntime,
  type ExecResult,
  type SandboxRuntimeOptions,
} from "./sandbox-runtime.ts";
export { bubblewrapStatus } from "./bwrap.ts";
export { MAX_EXEC_OUTPUT_BYTES, MAX_FILE_BYTES, type SandboxSpec } from "./control.ts";
export { SandboxError, type SandboxErrorCode } from "./errors.ts";
export type { FileStream } from "./files.ts";
export { DESKTOP_RFB_PORT } from "./sessions.ts";
export type { TerminalInfo, TerminalSession } from "./terminal.ts";
export { DEFAULT_LIMITS, type SandboxLimits } from "./limits.ts";
