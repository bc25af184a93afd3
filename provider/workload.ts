/**
 * Workload (RENTAL, VM, BM).
 *
 * Update in place: name, image, envs, ports, commands, args, registryAuth, sshKeys, volumes,
 * projectId, experiments (a PATCH; the service redeploys a workload that is not registered,
 * suspended or deleted, and the provider waits for running again). Replace: type, resourceName,
 * region, reservationUid, vmConfig, bmConfig. Lifecycle inputs: deploy, suspended (RENTAL).
 */
import {
  validateWorkloadCreate,
  type Workload,
  type WorkloadCreate,
  type WorkloadPatch,
  type WorkloadStatus,
} from "../api/index.ts";
import { DEFAULT_READY_TIMEOUT_SEC, compact, deleteIfPresent, pick, readyTimeoutMs } from "./common.ts";
import { createWorkloadOnce, liveWorkload, settle } from "./workload-core.ts";
import { diffFields, keepProgramShape, portsNormaliser, sortedStrings, type FieldRule } from "./diff.ts";
import { type CheckFailure, type Context, type Props, type ResourceModule } from "./resource.ts";
import { knownViolations } from "./unknowns.ts";
import { fromWire, toWire, wireFieldToProperty } from "./wire.ts";

/** Inputs a PATCH can change. */
const PATCH_FIELDS = [
  "name",
  "image",
  "envs",
  "ports",
  "commands",
  "args",
  "registryAuth",
  "sshKeys",
  "volumes",
  "projectId",
  "experiments",
] as const;

/** Inputs sent to the service on create: the patchable ones and those fixed at creation. */
const CREATE_FIELDS = [
  ...PATCH_FIELDS,
  "type",
  "resourceName",
  "region",
  "reservationUid",
  "vmConfig",
  "bmConfig",
] as const;

/** Every input of a Workload: what the service stores, and the provider's lifecycle switches. */
export const WORKLOAD_INPUTS = [
  ...CREATE_FIELDS,
  "deploy",
  "suspended",
  "readyTimeoutSec",
  "adoptUid",
] as const;

const volumesNormaliser = (v: unknown) =>
  Array.isArray(v)
    ? (v as Props[])
        .map((m) => ({ uid: m.uid, mountPath: m.mountPath, readOnly: m.readOnly ?? false }))
        .sort((a, b) => String(a.uid).localeCompare(String(b.uid)))
    : v;

const RULES: Record<string, FieldRule> = {
  type: { kind: "replace" },
  resourceName: { kind: "replace" },
  region: { kind: "replace" },
  reservationUid: { kind: "replace" },
  vmConfig: { kind: "replace" },
  bmConfig: { kind: "replace" },
  name: { kind: "redeploy" },
  image: { kind: "redeploy" },
  envs: { kind: "redeploy" },
  ports: { kind: "redeploy", normalise: portsNormaliser(true) },
  commands: { kind: "redeploy" },
  args: { kind: "redeploy" },
  registryAuth: { kind: "redeploy" },
  sshKeys: { kind: "redeploy", normalise: sortedStrings },
  volumes: { kind: "redeploy", normalise: volumesNormaliser },
  projectId: { kind: "redeploy" },
  experiments: { kind: "redeploy" },
  deploy: { kind: "update", default: true },
  suspended: { kind: "update", default: false },
  readyTimeoutSec: { kind: "update", default: DEFAULT_READY_TIMEOUT_SEC },
};

export function createBody(inputs: Props): WorkloadCreate {
  return toWire<WorkloadCreate>(pick(inputs, CREATE_FIELDS));
}

export function workloadCheck(olds: Props, news: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  if (news.type === "SANDBOX") {
    failures.push({
      property: "type",
      reason: "type SANDBOX is managed by the Sandbox resource; Workload takes RENTAL, VM or BM",
    });
  }
  if (news.suspended === true && news.type !== "RENTAL") {
    failures.push({
      property: "suspended",
      reason: `suspended is only supported for RENTAL workloads (type is ${String(news.type)})`,
    });
  }
  if (news.suspended === true && news.deploy === false) {
    failures.push({ property: "suspended", reason: "suspended requires deploy to be true" });
  }
  if (olds.deploy !== false && olds.type !== undefined && news.deploy === false) {
    failures.push({
      property: "deploy",
      reason:
        "deploy cannot change from true to false on an existing workload; use suspended (RENTAL) or delete it",
    });
  }
  const t = news.readyTimeoutSec;
  if (t !== undefined && (typeof t !== "number" || !Number.isInteger(t) || t < 1)) {
    failures.push({
      property: "readyTimeoutSec",
      reason: "readyTimeoutSec must be a positive integer number of seconds",
    });
  }
  const body = createBody(news);
  const result = validateWorkloadCreate(body);
  if (!result.ok) {
    for (const v of knownViolations(body, result.violations)) {
      failures.push({ property: wireFieldToProperty(v.field), reason: toInputWords(v.message) });
    }
  }
  return failures;
}

/** Rewrites wire field names inside a message to the camelCase property names of the program. */
export function toInputWords(message: string): string {
  return message.replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (w) => wireFieldToProperty(w));
}

function outputsOf(w: Workload, inputs: Props): Props {
  return compact({
    ...inputs,
    uid: w.uid,
    status: w.state.status,
    statusMessage: w.state.message,
    urls: w.state.urls,
    publicIp: w.state.public_ip ?? undefined,
    sshPort: w.state.ssh_port ?? undefined,
    readyReplicas: w.state.ready_replicas,
    totalReplicas: w.state.total_replicas,
    costPerHour: w.cost_per_hour,
    revision: w.revision,
    inventory: fromWire(w.resource),
    createdAt: w.created_at,
    updatedAt: w.updated_at,
  });
}

/** The inputs that reproduce what the service has; secrets it never returns come from `olds`. */
function inputsOf(w: Workload, olds: Props): Props {
  const oldBm = olds.bmConfig as Props | undefined;
  const bmHostname = w.bm_config?.hostname;
  const defaultHostname = oldBm?.hostname ?? olds.name ?? w.name;
  const oldAuth = olds.registryAuth as Props | undefined;
  return compact({
    type: w.type,
    name: w.name,
    image: w.image,
    resourceName: w.resource.name,
    region: w.bm_config?.region,
    reservationUid: w.reservation_uid,
    envs: w.envs,
    ports: w.ports,
    commands: w.commands,
    args: w.args,
    registryAuth: w.registry_auth
      ? { ...fromWire<Props>(w.registry_auth), password: oldAuth?.password }
      : undefined,
    sshKeys: w.ssh_keys,
    volumes: fromWire(w.volumes),
    vmConfig: olds.vmConfig,
    bmConfig:
      w.type !== "BM" ? undefined : bmHostname === defaultHostname ? (oldBm ?? {}) : { hostname: bmHostname },
    projectId: w.project_id || undefined,
    experiments: Object.keys(w.experiments).length ? w.experiments : undefined,
    deploy: olds.deploy ?? w.state.status !== "registered",
    suspended: w.type === "RENTAL" ? w.state.status === "suspended" : undefined,
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
    ctx.log(`deploying workload ${uid}`);
    status = (await workloads.deploy(uid)).state.status;
  }
  if (status !== "running") {
    status = (await workloads.waitForStatus(uid, "running", { timeoutMs: readyTimeoutMs(inputs) })).status;
  }
  if (wantSuspended) {
    ctx.log(`suspending workload ${uid}`);
    await workloads.suspend(uid);
    await workloads.waitForStatus(uid, "suspended", { timeoutMs: readyTimeoutMs(inputs) });
  }
}

/** A PATCH body holding the updatable fields where `want` differs from `have`. */
function patchBody(have: Props, want: Props): WorkloadPatch {
  const d = diffFields(RULES, have, want);
  const changed = PATCH_FIELDS.filter((k) => d.detail[k]);
  const body = toWire<WorkloadPatch>(pick(want, changed));
  if (changed.includes("projectId") && want.projectId === undefined) body.project_id = "";
  return body;
}

async function adopt(ctx: Context, uid: string, inputs: Props): Promise<Workload> {
  const w = await ctx.client.workloads.get(uid);
  if (w.state.status === "deleted") throw new Error(`cannot adopt workload ${uid}: it is deleted`);
  const have = inputsOf(w, inputs);
  const d = diffFields(RULES, have, inputs);
  const fixed = d.replaces.filter((k) => !["vmConfig", "bmConfig"].includes(k));
  if (fixed.length) {
    throw new Error(
      `cannot adopt workload ${uid}: ${fixed.map((k) => `${k} is ${JSON.stringify(have[k])} on the service but ${JSON.stringify(inputs[k])} in the program`).join("; ")}. These fields can only change by replacement; make the program match or drop adoptUid`,
    );
  }
  const patch = patchBody(have, inputs);
  if (Object.keys(patch).length) {
    ctx.log(`adopting workload ${uid}: updating ${Object.keys(patch).join(", ")}`);
    return ctx.client.workloads.update(uid, patch);
  }
  return w;
}

export const workload: ResourceModule = {
  name: "Workload",

  check(olds, news) {
    return { inputs: news, failures: workloadCheck(olds, news) };
  },

  diff(_id, olds, news) {
    const d = diffFields(RULES, olds, news);
    // A volume is mounted on one workload at a time: the old workload must let go of it first.
    const mounts = (p: Props) => Array.isArray(p.volumes) && p.volumes.length > 0;
    return { ...d, deleteBeforeReplace: d.replaces.length > 0 && (mounts(olds) || mounts(news)) };
  },

  async create(ctx, inputs) {
    const { workloads } = ctx.client;
    const body = createBody(inputs);
    const adoptUid = inputs.adoptUid as string | undefined;
    const created = adoptUid
      ? await adopt(ctx, adoptUid, inputs)
      : await createWorkloadOnce(ctx, body.name, body.type, () => workloads.create(body));
    const uid = created.uid;
    const failure = `workload ${uid} was registered but did not come up`;
    return {
      id: uid,
      outputs: await settle(ctx, uid, inputs, outputsOf, failure, () => converge(ctx, uid, inputs)),
    };
  },

  async read(ctx, id, olds) {
    const w = await liveWorkload(ctx, id);
    if (!w) return undefined;
    const inputs = keepProgramShape(RULES, olds, inputsOf(w, olds));
    return { id, inputs, outputs: outputsOf(w, inputs) };
  },

  async update(ctx, id, olds, news) {
    return settle(ctx, id, news, outputsOf, `updating workload ${id} failed`, async () => {
      const patch = patchBody(olds, news);
      if (Object.keys(patch).length) {
        const status = (await ctx.client.workloads.state(id)).status;
        const redeploys = !["registered", "suspended", "deleted"].includes(status);
        ctx.log(
          `updating workload ${id} (${Object.keys(patch).join(", ")})${redeploys ? "; the service redeploys it" : ""}`,
        );
        await ctx.client.workloads.update(id, patch);
      }
      await converge(ctx, id, news);
    });
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.workloads.delete(id));
  },
};
