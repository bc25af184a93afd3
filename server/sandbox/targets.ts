// What a sandbox request acts on: the workload's live sandbox in the request's pool, where it
// must be for the operation, and its terminals and desktop.

import type * as net from "node:net";
import { TERMINAL_ID } from "../../api/index.ts";
import { ApiError, notFound } from "../http/errors.ts";
import type { WorkloadRecord } from "../store/records.ts";
import type { DocTable } from "../store/store.ts";
import type { Pool, SandboxPools, Target } from "./pools.ts";
import { DESKTOP_RFB_PORT, type TerminalSession } from "./runtime/index.ts";

/** What the targets are found in: the workloads' table and the sandbox pools. */
export interface SandboxTargetDeps {
  workloads: DocTable<WorkloadRecord>;
  pools: SandboxPools;
}

/** Where the target of an operation must be. */
export type Need = "running" | "deployed" | "present";

/**
 * What a sandbox request acts on: the workload's live sandbox in the request's pool, and the
 * rules of where it must be for the operation (deployed, running, or merely present).
 */
export class SandboxTargets {
  private readonly d: SandboxTargetDeps;

  constructor(deps: SandboxTargetDeps) {
    this.d = deps;
  }

  /**
   * The sandbox an operation acts on, or the API error saying why not: 404 WORKLOAD_NOT_FOUND,
   * 400 WORKLOAD_OPERATION_UNSUPPORTED (not a sandbox), 409 WORKLOAD_SANDBOX_NOT_DEPLOYED,
   * 409 WORKLOAD_SANDBOX_UNAVAILABLE (still provisioning), 404 WORKLOAD_SANDBOX_TARGET_NOT_FOUND
   * (no runtime in the request's pool), 409 WORKLOAD_SANDBOX_INVALID_STATE (frozen, when it must run).
   */
  target(org: string, uid: string, pool: Pool, action: string, need: Need): Target {
    const w = this.sandboxWorkload(org, uid, action);
    const deployed = w.status === "running" || w.status === "frozen";
    if (!deployed && !(need === "present" && w.status === "provisioning")) {
      if (w.status === "provisioning")
        throw new ApiError(
          "WORKLOAD_SANDBOX_UNAVAILABLE",
          `cannot ${action} sandbox ${uid}: it is still provisioning; poll its state until running`,
        );
      throw new ApiError(
        "WORKLOAD_SANDBOX_NOT_DEPLOYED",
        `cannot ${action} sandbox ${uid}: it is not deployed (status ${w.status}); deploy it and wait for running`,
      );
    }
    const live = this.d.pools.live.get(uid);
    if (!live || live.pool !== pool)
      throw new ApiError(
        "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
        `sandbox ${uid} has no runtime in the ${pool} deployment (X-Deployment-Type selects the deployment)`,
      );
    if (need === "running" && w.status === "frozen")
      throw new ApiError(
        "WORKLOAD_SANDBOX_INVALID_STATE",
        `cannot ${action} sandbox ${uid}: it is frozen; thaw it first`,
      );
    return { w, live, rt: this.d.pools.runtimes[live.pool] };
  }

  isSandbox(org: string, uid: string): boolean {
    return this.d.workloads.getIn(org, uid)?.type === "SANDBOX";
  }

  /** The org's SANDBOX workload (404 / 400 otherwise). */
  private sandboxWorkload(org: string, uid: string, action: string): WorkloadRecord {
    const w = this.d.workloads.getIn(org, uid);
    if (!w) throw notFound("WORKLOAD_NOT_FOUND", "workload", uid);
    if (w.type !== "SANDBOX")
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `${action} is only supported for SANDBOX workloads (workload ${uid} is ${w.type})`,
      );
    return w;
  }
}

/** A live terminal of the target, for a WebSocket to attach to (404 unknown, 409 exited). */
export function terminalOf(t: Target, terminalId: string): TerminalSession {
  const term = TERMINAL_ID.test(terminalId) ? t.rt.getTerminal(t.live.id, terminalId) : undefined;
  if (!term)
    throw new ApiError(
      "WORKLOAD_TERMINAL_NOT_FOUND",
      `terminal ${terminalId} not found in sandbox ${t.w.uid}`,
    );
  if (term.exited)
    throw new ApiError(
      "WORKLOAD_SANDBOX_INVALID_STATE",
      `terminal ${terminalId} has exited (exit code ${term.exitCode}); open a new one`,
    );
  return term;
}

/** Whether the target has a desktop, its RFB port, and whether its server listens yet. */
export function desktopOf(
  t: Target,
): { available: false } | { available: true; port: number; listening: boolean } {
  if (!t.live.desktop) return { available: false };
  let listening = false;
  try {
    const d = t.rt.desktop(t.live.id);
    listening = d.available && d.listening;
  } catch {
    listening = false; // still starting
  }
  return { available: true, port: DESKTOP_RFB_PORT, listening };
}

/** A connection to the target's desktop (RFB), waiting up to waitMs for its server to listen. */
export function connectDesktop(t: Target, waitMs: number): Promise<net.Socket> {
  if (!t.live.desktop)
    throw new ApiError(
      "WORKLOAD_SANDBOX_NO_DESKTOP",
      `sandbox ${t.w.uid} has no desktop (headless template)`,
    );
  return t.rt.connectDesktop(t.live.id, waitMs);
}
