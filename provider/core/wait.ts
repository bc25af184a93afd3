/**
 * The waits for a workload to run (create, an update that redeploys, a resume, a sandbox's deploy, a
 * fork), the same for every resource and front end: while waiting, the resource's status line shows
 * the newest event and the replicas as they change (Context.status); when the wait fails, the
 * client's error carries the last events and log lines (client/diagnosis.ts), with every secret
 * the resource's inputs hold redacted, and its message is what every front end shows.
 */
import { progressLine, type WorkloadWaitOptions } from "../../client/index.ts";
import type { WorkloadState, WorkloadStatus } from "../../api/index.ts";
import { waitOptions } from "./timeouts.ts";
import { sayStatus, type Context, type Props } from "./types.ts";

const text = (v: unknown): string[] => (typeof v === "string" && v !== "" ? [v] : []);

/**
 * The values of `inputs` no service text may show: the registry and VM passwords, and the env
 * values the program marked secret: those the front end names (`Context.secrets`, the native
 * plugin), else every env value, since the dynamic provider and OpenTofu are not told which are.
 */
export function secretValues(ctx: Pick<Context, "secrets">, inputs: Props): string[] {
  const auth = inputs.registryAuth as Props | undefined;
  const vm = inputs.vmConfig as Props | undefined;
  const envs = Array.isArray(inputs.envs) ? (inputs.envs as Props[]) : [];
  const envValues = envs.flatMap((e) => text(e.value));
  const marked = ctx.secrets ? envValues.filter((v) => ctx.secrets!.includes(v)) : envValues;
  return [...text(auth?.password), ...text(vm?.password), ...marked, ...(ctx.secrets ?? [])];
}

/** The wait's options: the operation's timeout, progress on the status line, the secrets to redact. */
export function runningWaitOptions(ctx: Context, inputs: Props): WorkloadWaitOptions {
  return {
    ...waitOptions(ctx, inputs),
    secrets: secretValues(ctx, inputs),
    onProgress: (p) => sayStatus(ctx, progressLine(p)),
  };
}

/** Waits for workload `uid` to reach `target` (running, for a sandbox also frozen). */
export function waitForRunning(
  ctx: Context,
  uid: string,
  target: WorkloadStatus | WorkloadStatus[],
  inputs: Props,
): Promise<WorkloadState> {
  return ctx.client.workloads.waitForStatus(uid, target, runningWaitOptions(ctx, inputs));
}
