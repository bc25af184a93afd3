/**
 * The Sandbox's calls to the API: register and deploy (or fork) once, PATCH without redeploy,
 * freeze and thaw, read back, delete. Only fields the service accepts for sandboxes are sent.
 */
import {
  ForkBody,
  WORKLOAD_FIELDS,
  patchAccepts,
  type Workload,
  type WorkloadCreate,
  type WorkloadPatch,
} from "../../../api/index.ts";
import { bodyInputsOf, renamesOf } from "../../core/definition.ts";
import type { Controller } from "../../core/lifecycle.ts";
import { currentRetryBudget, withRetryBudget } from "../../../client/retry.ts";
import { capacityWaitMs } from "../../core/timeouts.ts";
import { waitForRunning } from "../../core/wait.ts";
import type { Context, Props } from "../../core/types.ts";
import { compact, pick } from "../../core/values.ts";
import { propsFrom, toWire } from "../../core/wire.ts";
import { createWorkloadOnce, forkOnce } from "../workload/create-once.ts";
import { liveWorkload } from "../workload/live.ts";
import { deployOnce, transitionOnce } from "../workload/transitions.ts";
import { definition, workloadField } from "./definition.ts";

const NAMES = renamesOf(definition);

/** Inputs the create body carries, each a field of the SANDBOX workload. */
const BODY_INPUTS = bodyInputsOf(definition);
const fieldOf = (input: string) => workloadField(input, definition.inputs[input]!.wire);

/** Inputs a PATCH changes: those whose service field a sandbox PATCH accepts (WORKLOAD_FIELDS). */
const PATCH_INPUTS = BODY_INPUTS.filter((k) => patchAccepts("SANDBOX", fieldOf(k)));

/** Inputs a fork request carries: those whose service field its body takes. */
const FORK_INPUTS = BODY_INPUTS.filter((k) => fieldOf(k) in ForkBody.shape);

function createBody(inputs: Props): WorkloadCreate {
  const fields = toWire<Omit<WorkloadCreate, "type">>(compact(pick(inputs, BODY_INPUTS)), NAMES);
  return { type: "SANDBOX", ...fields };
}

/** The PATCH value that clears an input the program no longer sets: 0 turns a timeout off. */
function cleared(input: string): unknown {
  const field = fieldOf(input);
  return field === "sandbox_config" ? 0 : (WORKLOAD_FIELDS[field] as { cleared?: unknown }).cleared;
}

function inputsOf(w: Workload, olds: Props): Props {
  const read = propsFrom(w, [...BODY_INPUTS, "forkFrom"], NAMES);
  // A fork reads as one when the program made it so, and on a lookup (import: olds without a name).
  const fork = Boolean(read.forkFrom && (olds.forkFrom || olds.name === undefined));
  return compact({
    name: read.name,
    template: fork ? undefined : (read.template ?? w.image),
    forkFrom: fork ? read.forkFrom : undefined,
    resourceName: olds.resourceName !== undefined ? read.resourceName : undefined,
    projectId: read.projectId || undefined,
    sshKeys: read.sshKeys,
    ports: w.ports.map((p) => ({ port: p.port, protocol: p.protocol })),
    ttlSec: read.ttlSec || undefined,
    idleTimeoutSec: read.idleTimeoutSec || undefined,
    frozen: w.state.status === "frozen",
    readyTimeoutSec: olds.readyTimeoutSec,
    waitForCapacity: olds.waitForCapacity,
  });
}

/**
 * Runs `deploy` with its retries of a capacity 503 bounded by `waitForCapacity` when it is set
 * (never past the operation's own budget); unset, they run to the operation's timeout.
 */
function forCapacity<T>(ctx: Context, inputs: Props, deploy: () => Promise<T>): Promise<T> {
  const wait = capacityWaitMs(ctx, inputs);
  if (wait === undefined) return deploy();
  const outer = currentRetryBudget();
  const deadline = Math.min(Date.now() + wait, outer?.deadline ?? Infinity);
  return withRetryBudget({ deadline, signal: outer?.signal ?? ctx.signal, onRetry: outer?.onRetry }, deploy);
}

/**
 * Deploys if needed, waits for running, then freezes or thaws as `frozen` asks. `frozen: true`
 * removed from the program thaws the sandbox (its empty value), after which it is unmanaged.
 */
async function converge(ctx: Context, uid: string, inputs: Props, olds: Props): Promise<void> {
  const { workloads } = ctx.client;
  const frozen = inputs.frozen ?? (olds.frozen === true ? false : undefined);
  let status = (await workloads.state(uid)).status;
  if (status === "registered" || status === "error") {
    const from = status;
    await forCapacity(ctx, inputs, () => deployOnce(ctx, uid, (s) => s !== from));
    status = "provisioning";
  }
  if (status === "frozen" && frozen === false) {
    await transitionOnce(ctx, uid, "thaw", (s) => s !== "frozen");
    status = "running";
  }
  if (status !== "running" && status !== "frozen") {
    status = (await waitForRunning(ctx, uid, ["running", "frozen"], inputs)).status;
  }
  if (frozen === true && status === "running") {
    await transitionOnce(ctx, uid, "freeze", (s) => s === "frozen");
  }
}

async function create(ctx: Context, inputs: Props): Promise<string> {
  if (!inputs.forkFrom) return (await createWorkloadOnce(ctx, createBody(inputs))).uid;
  const parent = inputs.forkFrom as string;
  ctx.log(`forking sandbox ${parent}`);
  const body = toWire<ForkBody>(compact(pick(inputs, FORK_INPUTS)), NAMES);
  return (await forkOnce(ctx, parent, body, inputs.name as string)).uid;
}

export const controller: Controller<Workload> = {
  get: (ctx, id) => liveWorkload(ctx, id),
  inputsOf,
  refuseAdoption: (w) => (w.type !== "SANDBOX" ? `cannot adopt ${w.uid}: not a live sandbox` : undefined),
  create,
  // A fork copies its parent's ports and keys: after create they are brought to the program's.
  alignAfterCreate: true,

  async update(ctx, id, _have, want, detail) {
    // Only the timeout that changed is sent: the other one stays as the service has it.
    const changed = PATCH_INPUTS.filter((k) => detail[k]);
    const patch = toWire<WorkloadPatch>(
      Object.fromEntries(changed.map((k) => [k, want[k] ?? cleared(k)])),
      NAMES,
    );
    if (!Object.keys(patch).length) return;
    ctx.log(`updating sandbox ${id} (${changed.join(", ")}) without redeploy`);
    await ctx.client.workloads.update(id, patch);
  },

  converge,
  delete: (ctx, id) => ctx.client.workloads.delete(id),
};
