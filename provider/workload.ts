/**
 * Workload (RENTAL, VM, BM). Which input a PATCH changes, which of those make the service
 * redeploy a deployed workload, and which need a replacement is WORKLOAD_FIELDS (api/); the
 * lifecycle inputs are deploy, suspended (RENTAL) and readyTimeoutSec.
 */
import {
  WORKLOAD_FIELDS,
  WORKLOAD_SERVICE_FIELDS,
  REDEPLOY_EXEMPT,
  RESOURCE_OUTPUTS,
  WRITE_ONLY_FIELDS,
  patchFields,
  redeploys,
  validateWorkloadCreate,
  type Workload,
  type WorkloadCreate,
  type WorkloadPatch,
  type WorkloadStatus,
  type WorkloadType,
} from "../api/index.ts";
import {
  DEFAULT_READY_TIMEOUT_SEC,
  compact,
  deleteIfPresent,
  onePerProperty,
  pick,
  waitOptions,
} from "./common.ts";
import { createWorkloadOnce, liveWorkload, settle, transitionOnce } from "./workload-core.ts";
import { diffFields, keepProgramShape, portsNormaliser, sortedStrings, type FieldRule } from "./diff.ts";
import {
  type ChangeKind,
  type CheckFailure,
  type Context,
  type Props,
  type ResourceModule,
} from "./resource.ts";
import { knownViolations } from "./unknowns.ts";
import { RENAMED, failureOf, propsFrom, snakeToCamel, toWire } from "./wire.ts";

/** Inputs sent to the service on create: one per service field (WORKLOAD_INPUTS holds the rest). */
const CREATE_FIELDS = WORKLOAD_SERVICE_FIELDS.map(snakeToCamel);

const volumesNormaliser = (v: unknown) =>
  Array.isArray(v)
    ? (v as Props[])
        .map((m) => ({ uid: m.uid, mountPath: m.mountPath, readOnly: m.readOnly ?? false }))
        .sort((a, b) => String(a.uid).localeCompare(String(b.uid)))
    : v;

const NORMALISE: Record<string, FieldRule["normalise"]> = {
  ports: portsNormaliser(true),
  sshKeys: sortedStrings,
  volumes: volumesNormaliser,
};

/** Passwords the service never returns: after an import the program's are not compared. */
const WRITE_ONLY: Record<string, readonly string[] | undefined> = Object.fromEntries(
  Object.entries(WRITE_ONLY_FIELDS).map(([f, hidden]) => [snakeToCamel(f), hidden]),
);

/** Diff rules: one per service field (kind from the api table), then the lifecycle switches. */
const RULES: Record<string, FieldRule> = {
  ...Object.fromEntries(
    WORKLOAD_SERVICE_FIELDS.map((f) => {
      const input = snakeToCamel(f);
      return [
        input,
        { kind: WORKLOAD_FIELDS[f].change, normalise: NORMALISE[input], writeOnly: WRITE_ONLY[input] },
      ];
    }),
  ),
  deploy: { kind: "update", default: true },
  suspended: { kind: "update", default: false },
  readyTimeoutSec: { kind: "update", default: DEFAULT_READY_TIMEOUT_SEC },
};

/**
 * The diff rules for a workload whose last known status is `status`: a field that redeploys is
 * a plain update while the workload is not deployed (the service redeploys nothing then).
 */
function rulesFor(status: unknown, deploy: unknown): Record<string, FieldRule> {
  const exempt = status === undefined ? deploy === false : REDEPLOY_EXEMPT.includes(status as WorkloadStatus);
  if (!exempt) return RULES;
  return Object.fromEntries(
    Object.entries(RULES).map(([k, r]) => [
      k,
      r.kind === "redeploy" ? { ...r, kind: "update" as ChangeKind } : r,
    ]),
  );
}

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
    for (const v of knownViolations(body, result.violations)) failures.push(failureOf(v));
  }
  return failures;
}

function outputsOf(w: Workload, inputs: Props): Props {
  return compact({ ...inputs, ...propsFrom(w, RESOURCE_OUTPUTS.Workload, RENAMED.Workload) });
}

/** Inputs read back as the service has them (the others come from `olds` or the status). */
const READ_INPUTS = CREATE_FIELDS.filter((f) => f !== "vmConfig" && f !== "bmConfig");

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
  const read = propsFrom(w, READ_INPUTS, RENAMED.Workload);
  return compact({
    ...read,
    registryAuth: read.registryAuth
      ? compact({ ...(read.registryAuth as Props), password: oldAuth?.password })
      : undefined,
    vmConfig: olds.vmConfig,
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
    ctx.log(`deploying workload ${uid}`);
    await transitionOnce(
      ctx,
      uid,
      "deploy",
      () => workloads.deploy(uid),
      (s) => !DEPLOYABLE.includes(s),
    );
    status = "provisioning";
  }
  if (status !== "running") {
    ctx.log(`waiting for workload ${uid} to be running`);
    status = (await workloads.waitForStatus(uid, "running", waitOptions(ctx, inputs))).status;
  }
  if (wantSuspended) {
    ctx.log(`suspending workload ${uid}`);
    await transitionOnce(
      ctx,
      uid,
      "suspend",
      () => workloads.suspend(uid),
      (s) => s === "suspended",
    );
    await workloads.waitForStatus(uid, "suspended", waitOptions(ctx, inputs));
  }
}

/**
 * A PATCH body holding the fields where `want` differs from `have`; a field the program no
 * longer sets is sent as its cleared value (WORKLOAD_FIELDS).
 */
function patchBody(type: WorkloadType, have: Props, want: Props): WorkloadPatch {
  const d = diffFields(RULES, have, want).detail;
  const body: Record<string, unknown> = {};
  for (const f of patchFields(type)) {
    const input = snakeToCamel(f);
    if (!d[input]) continue;
    const value = want[input];
    body[f] = value === undefined ? (WORKLOAD_FIELDS[f] as { cleared?: unknown }).cleared : toWire(value);
  }
  return body as WorkloadPatch;
}

/** Replace-only inputs whose value on the service differs from the program's (passwords cannot be read). */
export function fixedMismatches(
  rules: Record<string, FieldRule>,
  have: Props,
  want: Props,
  kind: string,
  uid: string,
): string | undefined {
  const d = diffFields(rules, have, want);
  const fixed = d.replaces.filter((k) => k !== "vmConfig" && want[k] !== undefined);
  if (!fixed.length) return undefined;
  return `cannot adopt ${kind} ${uid}: ${fixed.map((k) => `${k} is ${JSON.stringify(have[k] ?? null)} on the service but ${JSON.stringify(want[k])} in the program`).join("; ")}. These fields can only change by replacement; make the program match or drop adoptUid`;
}

async function adopt(ctx: Context, uid: string, inputs: Props): Promise<Workload> {
  const w = await liveWorkload(ctx, uid);
  if (!w || w.type === "SANDBOX")
    throw new Error(`cannot adopt workload ${uid}: it is not a live RENTAL, VM or BM workload`);
  const have = inputsOf(w, {});
  const refused = fixedMismatches(RULES, have, inputs, "workload", uid);
  if (refused) throw new Error(refused);
  // Inputs the program does not set stay as the service has them.
  const patch = patchBody(w.type, pick(have, Object.keys(inputs)), inputs);
  if (Object.keys(patch).length) {
    ctx.log(`adopting workload ${uid}: updating ${Object.keys(patch).join(", ")}`);
    return ctx.client.workloads.update(uid, patch);
  }
  return w;
}

/**
 * Refuses a replacement whose new resource would adopt the object it replaces: create would
 * take the same uid and delete would then remove it, leaving the stack pointing at nothing.
 */
export function refuseSelfAdoption(id: string, news: Props, replaces: string[], kind: string): void {
  if (!replaces.length || news.adoptUid !== id) return;
  throw new Error(
    `${kind} ${id}: changing ${replaces.join(", ")} replaces it, and the replacement would adopt ${id} (adoptUid), the very object being replaced. ` +
      "Remove adoptUid from the program (the object is already managed by this stack), then run the change again",
  );
}

export const workload: ResourceModule = {
  name: "Workload",

  check(olds, news) {
    return { inputs: news, failures: onePerProperty(workloadCheck(olds, news)) };
  },

  diff(id, olds, news) {
    const d = diffFields(rulesFor(olds.status, olds.deploy), olds, news);
    refuseSelfAdoption(id, news, d.replaces, "workload");
    // A volume is mounted on one workload at a time: the old workload must let go of it first.
    const mounts = (p: Props) => Array.isArray(p.volumes) && p.volumes.length > 0;
    return { ...d, deleteBeforeReplace: d.replaces.length > 0 && (mounts(olds) || mounts(news)) };
  },

  async create(ctx, inputs) {
    const body = createBody(inputs);
    const adoptUid = inputs.adoptUid as string | undefined;
    const created = adoptUid ? await adopt(ctx, adoptUid, inputs) : await createWorkloadOnce(ctx, body);
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
      const type = news.type as WorkloadType;
      const patch = patchBody(type, olds, news);
      const fields = Object.keys(patch);
      if (fields.length) {
        const status = (await ctx.client.workloads.state(id)).status;
        const redeploy = redeploys(type, status, fields);
        ctx.log(
          `updating workload ${id} (${fields.map(snakeToCamel).join(", ")})${redeploy ? "; the service redeploys it" : ""}`,
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
