/**
 * The workload's actions, what a user triggers rather than declares: `WorkloadReboot` (a VM) and
 * `WorkloadExec` (a command in a RENTAL workload or a sandbox, actions-exec.ts). Both act on a
 * workload by its uid (`workload_id = cws_workload.web.id`, or `cws_sandbox.box.id`), and both are
 * refused before they run, naming the rule, when the workload is of a type the service does not
 * do it for or is not running. Neither changes what the workload declares, so the plan after one
 * stays clean.
 */
import { z } from "zod";
import type { Workload } from "../../../api/index.ts";
import type { ActionDefinition, ActionInputDef, ActionPlan } from "../../core/action.ts";
import type { CheckFailure, Context, Props } from "../../core/types.ts";
import { UNKNOWN } from "../../core/unknowns.ts";
import { liveWorkload } from "./live.ts";

/** The uid of the workload an action acts on. */
export const workloadIdInput = (what: string): ActionInputDef => ({
  type: z.string().min(1, "workloadId must be a workload's uid"),
  description: `The uid of the ${what} (its \`id\`: \`cws_workload.NAME.id\`${what.includes("sandbox") ? " or `cws_sandbox.NAME.id`" : ""}).`,
  required: true,
});

/** How long a wait of an action may take, in seconds, by default. */
export const ACTION_WAIT_SEC = 600;

/** `web (wl-123)`: how messages name a workload. */
export const named = (w: Pick<Workload, "name" | "uid">) => `${w.name} (${w.uid})`;

/** A rule about the workload's type: why `w` is not one the action is for, or undefined. */
export type TypeRule = (w: Workload) => string | undefined;

/**
 * Why the action cannot act on `w` now: its type (`rule`), or a status other than running or
 * provisioning (a deploy in progress, which the run waits out) while the same plan does not change
 * the workload (an update that starts it again: checked when the action runs).
 */
function refusal(action: string, w: Workload, rule: TypeRule, plan?: ActionPlan): string | undefined {
  const wrongType = rule(w);
  if (wrongType) return wrongType;
  const status = w.state.status;
  if (status === "running" || status === "provisioning") return undefined;
  if (plan?.changing(w.uid)) return undefined;
  return `workload ${named(w)} is ${status}, not running: ${action} acts only on a running workload`;
}

/**
 * The plan-time check of a workload action: the workload must exist, be of a type `rule` accepts
 * and be running. Nothing is asked while its uid is not known yet (a workload the same apply
 * creates): the run checks it then.
 */
export async function checkTarget(
  action: string,
  rule: TypeRule,
  ctx: Context,
  args: Props,
  plan: ActionPlan,
): Promise<CheckFailure[]> {
  const uid = args.workloadId;
  if (typeof uid !== "string" || uid === UNKNOWN) return [];
  const w = await liveWorkload(ctx, uid);
  if (!w) return [{ property: "workloadId", reason: `the service has no workload with uid ${uid}` }];
  const why = refusal(action, w, rule, plan);
  return why ? [{ property: "workloadId", reason: why }] : [];
}

/**
 * The workload, checked again when the action runs: of a type `rule` accepts and running (a
 * deploy in progress is waited out, up to `timeoutMs`); throws the rule it breaks.
 */
export async function runningTarget(
  action: string,
  rule: TypeRule,
  ctx: Context & { progress(message: string): void },
  uid: string,
  timeoutMs: number,
): Promise<Workload> {
  const w = await liveWorkload(ctx, uid);
  if (!w) throw new Error(`the service has no workload with uid ${uid}`);
  const why = refusal(action, w, rule);
  if (why) throw new Error(why);
  if (w.state.status === "provisioning") {
    ctx.progress(`waiting for ${named(w)} to be running`);
    await ctx.client.workloads.waitForStatus(uid, "running", { timeoutMs, signal: ctx.signal });
  }
  return w;
}

const onlyVm: TypeRule = (w) =>
  w.type === "VM"
    ? undefined
    : `a reboot is for VM workloads only: workload ${named(w)} is ${w.type === "SANDBOX" ? "a sandbox" : w.type}${w.type === "RENTAL" ? " (a change that redeploys it restarts a RENTAL workload)" : ""}`;

const waitSec = z
  .number()
  .int("timeoutSec must be a whole number of seconds")
  .min(1, "timeoutSec must be at least 1");

export const workloadReboot: ActionDefinition = {
  name: "WorkloadReboot",
  kind: "Workload",
  description:
    "Reboots a VM workload and waits until it is running again. The service reboots VM workloads only; a workload that is not running is refused.",
  inputs: {
    workloadId: workloadIdInput("VM workload"),
    timeoutSec: {
      type: waitSec,
      description: "How long to wait for the VM to be running again, in seconds.",
      default: ACTION_WAIT_SEC,
    },
  },
  check: (ctx, args, plan) => checkTarget("cws_workload_reboot", onlyVm, ctx, args, plan),
  async invoke(ctx, args) {
    const timeoutMs = ((args.timeoutSec as number | undefined) ?? ACTION_WAIT_SEC) * 1000;
    const uid = String(args.workloadId);
    const w = await runningTarget("cws_workload_reboot", onlyVm, ctx, uid, timeoutMs);
    const started = Date.now();
    ctx.progress(`rebooting VM ${named(w)}`);
    await ctx.client.workloads.reboot(uid, { signal: ctx.signal });
    await ctx.client.workloads.waitForStatus(uid, "running", { timeoutMs, signal: ctx.signal });
    ctx.progress(`${named(w)} is running again (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  },
  notes:
    "The reboot shows in the workload's events (`reason` Reboot). The workload's attributes do not change, so the plan after it has nothing to do.",
  example: { workloadId: "${cws_workload.vm.id}" },
};
