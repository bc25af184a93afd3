/** What the Workload and Sandbox modules share: reading a live workload and creating one once. */
import type { Workload, WorkloadOperation, WorkloadType } from "../api/index.ts";
import { createOnce, messageOf, unlessGone } from "./common.ts";
import { PartialStateError, type Context, type Props } from "./resource.ts";

/** The workload, or undefined when it is gone or soft-deleted. */
export async function liveWorkload(ctx: Context, uid: string): Promise<Workload | undefined> {
  const w = await unlessGone(() => ctx.client.workloads.get(uid));
  return w && w.state.status !== "deleted" ? w : undefined;
}

/** Outputs from the service's current record, falling back to the inputs when even that fails. */
export async function currentOutputs(
  ctx: Context,
  uid: string,
  inputs: Props,
  outputsOf: (w: Workload, inputs: Props) => Props,
): Promise<Props> {
  try {
    return outputsOf(await ctx.client.workloads.get(uid), inputs);
  } catch {
    return { ...inputs, uid };
  }
}

/** Creates (or forks) a workload at most once; see createOnce. */
export function createWorkloadOnce(
  ctx: Context,
  name: string,
  type: WorkloadType,
  create: () => Promise<WorkloadOperation>,
): Promise<WorkloadOperation> {
  return createOnce(
    () => ctx.client.workloads.iterate({ name, type }),
    (w) => w.name === name,
    create,
  );
}

/**
 * Runs `work` on a workload that exists on the service and returns its outputs. A failure keeps
 * the workload in state (a partially created or updated resource) with the service's message.
 */
export async function settle(
  ctx: Context,
  uid: string,
  inputs: Props,
  outputsOf: (w: Workload, inputs: Props) => Props,
  failure: string,
  work: () => Promise<void>,
): Promise<Props> {
  try {
    await work();
  } catch (e) {
    throw new PartialStateError(
      uid,
      await currentOutputs(ctx, uid, inputs, outputsOf),
      `${failure}: ${messageOf(e)}`,
    );
  }
  return currentOutputs(ctx, uid, inputs, outputsOf);
}
