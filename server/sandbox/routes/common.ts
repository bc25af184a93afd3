/**
 * What the sandbox routes share: the guard that steps aside while another module owns
 * sandboxes, the sandbox a request targets, and runtime failures translated into API errors.
 */
import { ApiError } from "../../http/errors.ts";
import { NEXT, type Handler, type RequestContext } from "../../http/router.ts";
import { SandboxError } from "../runtime/index.ts";
import type { Pool, Target } from "../pools.ts";
import type { SandboxService } from "../service.ts";
import type { Need } from "../targets.ts";

/** What an operation was on, for the error code of a runtime NOT_FOUND. */
type ErrorKind = "file" | "terminal" | "sandbox";

/** A route handler that passes the request on (NEXT) while another module owns sandboxes. */
export function sandboxRoute<C extends RequestContext>(
  svc: SandboxService,
  handler: (rc: C) => ReturnType<Handler>,
): (rc: C) => ReturnType<Handler> {
  return (rc) => (svc.active() ? handler(rc) : NEXT);
}

/**
 * The target of a request on `.../workloads/:uid/...`, in the pool its X-Deployment-Type header
 * selects, or the API error saying why there is none (see SandboxService.target).
 */
export function targetOf(svc: SandboxService, rc: RequestContext, action: string, need: Need): Target {
  return targetInPool(svc, rc, action, need).t;
}

/** The pool the request's X-Deployment-Type selects, and the request's target in it (see targetOf). */
export function targetInPool(
  svc: SandboxService,
  rc: RequestContext,
  action: string,
  need: Need,
): { pool: Pool; t: Target } {
  const pool = svc.poolOf(rc.deploymentType);
  return { pool, t: svc.target(rc.org, rc.params.uid!, pool, action, need) };
}

/** Runs an operation on the sandbox (it counts as activity) and answers a failure as an API error. */
export async function runOn<T>(
  svc: SandboxService,
  t: Target,
  fn: () => Promise<T>,
  kind: ErrorKind = "sandbox",
): Promise<T> {
  try {
    return await svc.busy(t, fn);
  } catch (e) {
    throw sandboxApiError(svc, e, t, kind);
  }
}

/** The API error for a runtime failure of an operation on t. */
export function sandboxApiError(
  svc: SandboxService,
  e: unknown,
  t: Target | undefined,
  kind: ErrorKind = "sandbox",
): Error {
  if (e instanceof ApiError) return e;
  if (e instanceof SandboxError) {
    switch (e.code) {
      case "NOT_FOUND":
        return new ApiError(
          kind === "terminal" ? "WORKLOAD_TERMINAL_NOT_FOUND" : "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
          e.message,
        );
      case "INVALID_PATH":
        return new ApiError("WORKLOAD_SANDBOX_PATH_INVALID", e.message);
      case "TOO_LARGE":
        return new ApiError("WORKLOAD_SANDBOX_FILE_TOO_LARGE", e.message);
      case "NO_DESKTOP":
        return new ApiError("WORKLOAD_SANDBOX_NO_DESKTOP", e.message);
      case "LIMIT":
        return new ApiError("WORKLOAD_SANDBOX_SESSION_LIMIT", e.message);
      case "INVALID_STATE": {
        const state = t ? svc.runtimeState(t.live) : undefined;
        if (state === "frozen") return new ApiError("WORKLOAD_SANDBOX_INVALID_STATE", e.message);
        return new ApiError("WORKLOAD_SANDBOX_UNAVAILABLE", `sandbox is not available: ${e.message}`);
      }
      case "UNAVAILABLE":
        return new ApiError("WORKLOAD_SANDBOX_GATEWAY_FAILURE", `sandbox did not answer: ${e.message}`);
      case "BUSY":
        // The spec's status for an unavailable sandbox (409): another operation holds it.
        return new ApiError("WORKLOAD_SANDBOX_UNAVAILABLE", e.message, { headers: { "retry-after": "1" } });
    }
  }
  if (e instanceof TypeError) return new ApiError("INVALID_BODY", e.message);
  // Anything else came from a sandbox that is going away (deleted or stopped meanwhile) or
  // failed in a way the client cannot fix: never a bare 500.
  const state = t ? svc.runtimeState(t.live) : undefined;
  if (!t || state === undefined || state === "destroying" || state === "stopped")
    return new ApiError(
      "WORKLOAD_SANDBOX_UNAVAILABLE",
      `sandbox is not available: ${String((e as Error)?.message ?? e)}`,
    );
  return new ApiError(
    "WORKLOAD_SANDBOX_GATEWAY_FAILURE",
    `sandbox failed: ${String((e as Error)?.message ?? e)}`,
  );
}
