/** A workload's lifecycle calls (deploy, suspend; a sandbox's freeze, thaw), each run at most once. */
import type { WorkloadStatus } from "../../../api/index.ts";
import { hasReason, isAmbiguous } from "../../../client/errors.ts";
import { CREATE_ATTEMPTS } from "../../core/create-once.ts";
import type { Context } from "../../core/types.ts";
import { messageOf } from "../../core/values.ts";

/** The lifecycle calls on a workload (deploy, suspend) or sandbox (freeze, thaw). */
const TRANSITIONS = {
  deploy: (ctx: Context, uid: string) => ctx.client.workloads.deploy(uid),
  suspend: (ctx: Context, uid: string) => ctx.client.workloads.suspend(uid),
  freeze: (ctx: Context, uid: string) => ctx.client.sandboxes.freeze(uid),
  thaw: (ctx: Context, uid: string) => ctx.client.sandboxes.thaw(uid),
};

const DOING: Record<keyof typeof TRANSITIONS, string> = {
  deploy: "deploying",
  suspend: "suspending",
  freeze: "freezing",
  thaw: "thawing",
};

/**
 * Runs a state transition (deploy, suspend, freeze, thaw) at most once, saying so. The client
 * does not repeat these after an ambiguous failure; here the workload's state says whether it
 * happened (`happened`), and it is sent again only when it did not.
 */
export async function transitionOnce(
  ctx: Context,
  uid: string,
  what: keyof typeof TRANSITIONS,
  happened: (status: WorkloadStatus) => boolean,
): Promise<void> {
  ctx.log(`${DOING[what]} ${uid}`);
  for (let attempt = 1; ; attempt++) {
    try {
      await TRANSITIONS[what](ctx, uid);
      return;
    } catch (e) {
      if (!isAmbiguous(e) || attempt >= CREATE_ATTEMPTS) throw e;
      if (happened((await ctx.client.workloads.state(uid)).status)) return;
      ctx.log(
        `${what} of ${uid}: the answer was lost (${messageOf(e)}) and it did not happen; sending it again`,
      );
    }
  }
}

/** Deploys the service refuses for want of credits or capacity, and what brings them through. */
const REFUSALS = {
  WORKLOAD_INSUFFICIENT_CREDITS: ["the org has too few credits", "credits are added"],
  WORKLOAD_NO_CAPACITY: ["no capacity is left for its resource", "capacity is free again"],
  WORKLOAD_BM_CLAIM_CONFLICT: ["no bare-metal capacity is left in its region", "capacity is free again"],
  // Retried (503) until the operation's timeout before it comes to this.
  WORKLOAD_SANDBOX_NO_CAPACITY: ["no sandbox capacity was free before the timeout", "capacity is free again"],
} as const;

/**
 * A deploy refusal for credits or capacity said plainly: the object stays registered (the
 * lifecycle keeps it in state) and a later update deploys it. Other errors as they are.
 */
export function explainRefusal(e: unknown): unknown {
  const reason = (Object.keys(REFUSALS) as (keyof typeof REFUSALS)[]).find((r) => hasReason(e, r));
  if (!reason || !hasReason(e, reason)) return e;
  const [why, fix] = REFUSALS[reason];
  return new Error(
    `the service refused to deploy it: ${why} (${reason}: ${e.serviceMessage}). ` +
      `It stays registered; the next update deploys it once ${fix}, without replacing it`,
    { cause: e },
  );
}

/** The deploy (transitionOnce), a refusal for credits or capacity said plainly (explainRefusal). */
export async function deployOnce(
  ctx: Context,
  uid: string,
  happened: (status: WorkloadStatus) => boolean,
): Promise<void> {
  try {
    await transitionOnce(ctx, uid, "deploy", happened);
  } catch (e) {
    throw explainRefusal(e);
  }
}
