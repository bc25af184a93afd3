/** The Workload's calls to the API: register once, deploy, suspend, PATCH, read back, delete. */
import {
  WORKLOAD_FIELDS,
  patchFields,
  redeploys,
  type Workload,
  type WorkloadPatch,
  type WorkloadStatus,
  type WorkloadType,
} from "../../../api/index.ts";
import type { Controller } from "../../core/lifecycle.ts";
import { waitOptions } from "../../core/timeouts.ts";
import { waitForRunning } from "../../core/wait.ts";
import type { Context, Props } from "../../core/types.ts";
import { compact } from "../../core/values.ts";
import { propsFrom, snakeToCamel, toWire, type Renames } from "../../core/wire.ts";
import { createWorkloadOnce } from "./create-once.ts";
import { liveWorkload } from "./live.ts";
import { placeWorkload, placedBody } from "./place.ts";
import { hasFallbacks, placementInputs } from "./placement.ts";
import { deployOnce, transitionOnce } from "./transitions.ts";
import { bodyInputsOf, renamesOf } from "../../core/definition.ts";
import { createBody, definition } from "./definition.ts";

const NAMES: Renames = renamesOf(definition);

/** Inputs read back as the service has them (the others come from `olds` or the status). */
const READ_INPUTS = bodyInputsOf(definition).filter((f) => f !== "vmConfig" && f !== "bmConfig");

/**
 * The inputs that reproduce what the service has; secrets it never returns come from `olds`.
 * The lifecycle switches report lifecycle drift: a workload found in `error` (or back in
 * `registered`) reads as `deploy: false`, one found suspended as `suspended: true`, so refresh
 * shows them and up deploys again.
 */
function inputsOf(w: Workload, olds: Props): Props {
  const oldBm = olds.bmConfig as Props | undefined;
  const bmHostname = w.bm_config?.hostname;
  const defaultHostname = oldBm?.hostname ?? olds.name ?? w.name;
  const oldAuth = olds.registryAuth as Props | undefined;
  const status = w.state.status;
  const read = propsFrom(w, READ_INPUTS, NAMES);
  return compact({
    ...read,
    ...placementInputs(read, olds),
    registryAuth: read.registryAuth
      ? compact({ ...(read.registryAuth as Props), password: oldAuth?.password })
      : undefined,
    // A VM has a vmConfig whose password the service never returns: an import reads it as {}.
    vmConfig: w.type === "VM" ? (olds.vmConfig ?? {}) : undefined,
    bmConfig:
      w.type !== "BM" ? undefined : bmHostname === defaultHostname ? (oldBm ?? {}) : { hostname: bmHostname },
    projectId: read.projectId || undefined,
    experiments: Object.keys(w.experiments).length ? w.experiments : undefined,
    deploy: olds.deploy === false ? false : status !== "registered" && status !== "error",
    suspended: w.type === "RENTAL" ? status === "suspended" : undefined,
    readyTimeoutSec: olds.readyTimeoutSec,
  });
}

const DEPLOYABLE: WorkloadStatus[] = ["registered", "error", "suspended"];

/** Brings the workload's lifecycle to what the inputs ask for: deployed and running, or suspended. */
async function converge(ctx: Context, uid: string, inputs: Props): Promise<void> {
  const { workloads } = ctx.client;
  if (inputs.deploy === false) return;
  const wantSuspended = inputs.suspended === true;
  let status = (await workloads.state(uid)).status;
  if (wantSuspended && status === "suspended") return;
  if (DEPLOYABLE.includes(status)) {
    await deployOnce(ctx, uid, (s) => !DEPLOYABLE.includes(s));
    status = "provisioning";
  }
  if (status !== "running") {
    ctx.log(`waiting for workload ${uid} to be running`);
    status = (await waitForRunning(ctx, uid, "running", inputs)).status;
  }
  if (wantSuspended) {
    await transitionOnce(ctx, uid, "suspend", (s) => s === "suspended");
    await workloads.waitForStatus(uid, "suspended", waitOptions(ctx, inputs));
  }
}

/** A PATCH body of the changed fields; a field the program no longer sets is sent cleared (WORKLOAD_FIELDS). */
function patchBody(type: WorkloadType, want: Props, changed: Record<string, unknown>): WorkloadPatch {
  const body: Record<string, unknown> = {};
  for (const f of patchFields(type)) {
    const input = snakeToCamel(f);
    if (!changed[input]) continue;
    const value = want[input];
    body[f] = value === undefined ? (WORKLOAD_FIELDS[f] as { cleared?: unknown }).cleared : toWire(value);
  }
  return body as WorkloadPatch;
}

/**
 * Registers the workload at most once; with fallbacks or a wait for capacity (and a deploy to
 * make), on the first of its candidates the service has capacity for, deployed (place.ts).
 */
async function create(ctx: Context, inputs: Props): Promise<string> {
  const register = async (body = createBody(inputs)) => (await createWorkloadOnce(ctx, body)).uid;
  const placing = hasFallbacks(inputs) || inputs.waitForCapacity !== undefined;
  if (inputs.deploy === false || !placing) return register();
  return placeWorkload(ctx, inputs, (c) => register(placedBody(createBody, inputs, c)));
}

export const controller: Controller<Workload> = {
  get: (ctx, id) => liveWorkload(ctx, id),
  inputsOf,
  refuseAdoption: (w) =>
    w.type === "SANDBOX"
      ? `cannot adopt workload ${w.uid}: it is not a live RENTAL, VM or BM workload`
      : undefined,
  create: (ctx, inputs) => create(ctx, inputs),

  async update(ctx, id, _have, want, detail) {
    const type = want.type as WorkloadType;
    const patch = patchBody(type, want, detail);
    const fields = Object.keys(patch);
    if (!fields.length) return;
    const status = (await ctx.client.workloads.state(id)).status;
    const redeploy = redeploys(type, status, fields);
    ctx.log(
      `updating workload ${id} (${fields.map(snakeToCamel).join(", ")})${redeploy ? "; the service redeploys it" : ""}`,
    );
    await ctx.client.workloads.update(id, patch);
  },

  converge: (ctx, id, inputs) => converge(ctx, id, inputs),
  delete: (ctx, id) => ctx.client.workloads.delete(id),
};
