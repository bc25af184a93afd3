/**
 * The waits for a workload to run (create, an update that redeploys, a resume, a sandbox's deploy, a
 * fork), the same for every resource and front end: while waiting, the resource's status line shows
 * the newest event and the replicas as they change (Context.status); when the wait fails, the
 * client's error carries the last events and log lines (client/diagnosis.ts), with every secret
 * the resource's inputs hold redacted, and its message is what every front end shows.
 */
import { progressLine, redact, type WorkloadWaitOptions } from "../../client/index.ts";
import type { WorkloadState, WorkloadStatus } from "../../api/index.ts";
import { waitOptions } from "./timeouts.ts";
import { sayStatus, type Context, type Props } from "./types.ts";

const text = (v: unknown): string[] => (typeof v === "string" && v !== "" ? [v] : []);

/**
 * The values of `inputs` no service text may show: the registry and VM passwords, and the env
 * values the program marked secret: those the front end names (`Context.secrets`, the native
 * plugin: every string it got as a secret, but a registry's server and username), else every env
 * value, since the dynamic provider and OpenTofu are not told which are.
 */
export function secretValues(ctx: Pick<Context, "secrets">, inputs: Props): string[] {
  const auth = inputs.registryAuth as Props | undefined;
  const vm = inputs.vmConfig as Props | undefined;
  const envs = Array.isArray(inputs.envs) ? (inputs.envs as Props[]) : [];
  const envValues = envs.flatMap((e) => text(e.value));
  if (!ctx.secrets) return [...text(auth?.password), ...text(vm?.password), ...envValues];
  // The registry's server and username are in a secret object, but not secret themselves.
  const shown = new Set([...text(auth?.server), ...text(auth?.username)]);
  const marked = ctx.secrets.filter((v) => !shown.has(v));
  return [...text(auth?.password), ...text(vm?.password), ...marked];
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

/**
 * The service's own words about an object (its `statusMessage`), as state may keep them: every
 * secret of the inputs and the client's token redacted, since the service may echo them.
 */
export function redactOutputs(ctx: Context, inputs: Props, outputs: Props): Props {
  if (typeof outputs.statusMessage !== "string") return outputs;
  const redacted = redact(outputs.statusMessage, secretValues(ctx, inputs));
  // A stand-in client of a test may have no scrub: the token is then not the service's to echo.
  const clean = typeof ctx.client.scrub === "function" ? ctx.client.scrub(redacted) : redacted;
  return clean === outputs.statusMessage ? outputs : { ...outputs, statusMessage: clean };
}
