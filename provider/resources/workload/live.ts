/** Reading a workload (or sandbox) that is still live: gone and soft-deleted are both absent. */
import type { Workload } from "../../../api/index.ts";
import type { Context } from "../../core/types.ts";
import { unlessGone } from "../../core/values.ts";

/** The workload, or undefined when it is gone or soft-deleted. */
export async function liveWorkload(ctx: Context, uid: string): Promise<Workload | undefined> {
  const w = await unlessGone(() => ctx.client.workloads.get(uid));
  return w && w.state.status !== "deleted" ? w : undefined;
}
