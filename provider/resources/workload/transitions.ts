/** A workload's lifecycle calls (deploy, suspend; a sandbox's freeze, thaw), each run at most once. */
import type { WorkloadStatus } from "../../../api/index.ts";
import { isAmbiguous } from "../../../client/errors.ts";
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
