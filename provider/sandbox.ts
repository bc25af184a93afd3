/**
 * Sandbox: an isolated Linux environment made from a sandbox template.
 *
 * Update in place, without redeploy: name, projectId, sshKeys, ports, ttlSec, idleTimeoutSec;
 * frozen maps to freeze/thaw. Replace: template, resourceName, forkFrom. create registers,
 * deploys and waits for running, or forks `forkFrom`. Only fields the service accepts for
 * sandboxes are ever sent.
 */
import {
  nameViolation,
  portViolations,
  sandboxTimeoutViolation,
  type Workload,
  type WorkloadCreate,
  type WorkloadPatch,
} from "../api/index.ts";
import { DEFAULT_READY_TIMEOUT_SEC, compact, deleteIfPresent, readyTimeoutMs } from "./common.ts";
import { createWorkloadOnce, liveWorkload, settle } from "./workload-core.ts";
import { diffFields, keepProgramShape, portsNormaliser, sortedStrings, type FieldRule } from "./diff.ts";
import { type CheckFailure, type Context, type Props, type ResourceModule } from "./resource.ts";
import { UNKNOWN } from "./unknowns.ts";
import { toWire, wireFieldToProperty } from "./wire.ts";
import { toInputWords } from "./workload.ts";

const RULES: Record<string, FieldRule> = {
  template: { kind: "replace" },
  resourceName: { kind: "replace" },
  forkFrom: { kind: "replace" },
  name: { kind: "update" },
  projectId: { kind: "update" },
  sshKeys: { kind: "update", normalise: sortedStrings },
  ports: { kind: "update", normalise: portsNormaliser(false) },
  ttlSec: { kind: "update", normalise: (v) => v || undefined },
  idleTimeoutSec: { kind: "update", normalise: (v) => v || undefined },
  // Unset: not managed, so a pause by the idle timeout is not undone. false: kept running.
  frozen: { kind: "update" },
  readyTimeoutSec: { kind: "update", default: DEFAULT_READY_TIMEOUT_SEC },
};

const known = (v: unknown) => v !== undefined && v !== UNKNOWN;

function check(news: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const add = (v: { field: string; message: string } | undefined) => {
    if (v) failures.push({ property: wireFieldToProperty(v.field), reason: toInputWords(v.message) });
  };
  if (typeof news.name === "string") add(nameViolation("SANDBOX", news.name));
  else if (news.name === undefined) failures.push({ property: "name", reason: "name is required" });
  if (news.template === undefined && news.forkFrom === undefined) {
    failures.push({
      property: "template",
      reason: "template (a READY sandbox template UID) or forkFrom (a running sandbox UID) is required",
    });
  }
  if (known(news.template) && known(news.forkFrom)) {
    failures.push({
      property: "forkFrom",
      reason: "give either template or forkFrom, not both: a fork takes its parent's template",
    });
  }
  if (Array.isArray(news.ports) && !news.ports.some((p) => p === UNKNOWN)) {
    for (const v of portViolations("SANDBOX", news.ports as never)) add(v);
    (news.ports as Props[]).forEach((p, i) => {
      const n = p.port;
      if (typeof n === "number" && (n < 1024 || n > 65535 || !Number.isInteger(n))) {
        failures.push({
          property: `ports[${i}].port`,
          reason: `ports[${i}].port must be an integer between 1024 and 65535`,
        });
      }
      if (
        p.protocol !== undefined &&
        p.protocol !== "TCP" &&
        p.protocol !== "UDP" &&
        p.protocol !== UNKNOWN
      ) {
        failures.push({
          property: `ports[${i}].protocol`,
          reason: `ports[${i}].protocol must be TCP or UDP for sandboxes`,
        });
      }
    });
  }
  for (const k of ["ttlSec", "idleTimeoutSec", "readyTimeoutSec"]) {
    const v = news[k];
    if (v !== undefined && v !== UNKNOWN && (typeof v !== "number" || !Number.isInteger(v) || v < 0)) {
      failures.push({ property: k, reason: `${k} must be a non-negative integer number of seconds` });
    }
  }
  if (typeof news.ttlSec === "number" && typeof news.idleTimeoutSec === "number") {
    add(sandboxTimeoutViolation(news.ttlSec, news.idleTimeoutSec));
  }
  return failures;
}

function sandboxConfig(inputs: Props) {
  const cfg = compact({ ttl_sec: inputs.ttlSec, idle_timeout_sec: inputs.idleTimeoutSec });
  return Object.keys(cfg).length ? cfg : undefined;
}

function createBody(inputs: Props): WorkloadCreate {
  return compact({
    type: "SANDBOX",
    name: inputs.name,
    image: inputs.template,
    resource_name: inputs.resourceName,
    project_id: inputs.projectId,
    ssh_keys: inputs.sshKeys,
    ports: inputs.ports ? toWire(inputs.ports) : undefined,
    sandbox_config: sandboxConfig(inputs),
  }) as unknown as WorkloadCreate;
}

/** The PATCH for the sandbox fields of `want` that differ from `have`. */
function patchBody(have: Props, want: Props): WorkloadPatch {
  const d = diffFields(RULES, have, want).detail;
  const body: WorkloadPatch = {};
  if (d.name) body.name = want.name as string;
  if (d.projectId) body.project_id = (want.projectId as string | undefined) ?? "";
  if (d.sshKeys) body.ssh_keys = (want.sshKeys as string[] | undefined) ?? [];
  if (d.ports) body.ports = toWire((want.ports as Props[] | undefined) ?? []);
  if (d.ttlSec || d.idleTimeoutSec) {
    body.sandbox_config = {
      ttl_sec: (want.ttlSec as number | undefined) ?? 0,
      idle_timeout_sec: (want.idleTimeoutSec as number | undefined) ?? 0,
    };
  }
  return body;
}

function outputsOf(w: Workload, inputs: Props): Props {
  return compact({
    ...inputs,
    uid: w.uid,
    status: w.state.status,
    statusMessage: w.state.message,
    urls: w.state.urls,
    sshPort: w.state.ssh_port ?? undefined,
    costPerHour: w.cost_per_hour,
    frozenCostPerHour: w.frozen_cost_per_hour,
    templateUid: w.sandbox_config?.template_uid,
    parentUid: w.sandbox_config?.parent_workload_uid,
    revision: w.revision,
    createdAt: w.created_at,
    updatedAt: w.updated_at,
  });
}

function inputsOf(w: Workload, olds: Props): Props {
  const fork = w.sandbox_config?.parent_workload_uid;
  return compact({
    name: w.name,
    template: fork && olds.forkFrom ? undefined : (w.sandbox_config?.template_uid ?? w.image),
    forkFrom: fork && olds.forkFrom ? fork : undefined,
    resourceName: olds.resourceName !== undefined ? w.resource.name : undefined,
    projectId: w.project_id || undefined,
    sshKeys: w.ssh_keys,
    ports: w.ports.map((p) => ({ port: p.port, protocol: p.protocol })),
    ttlSec: w.sandbox_config?.ttl_sec || undefined,
    idleTimeoutSec: w.sandbox_config?.idle_timeout_sec || undefined,
    frozen: w.state.status === "frozen",
    readyTimeoutSec: olds.readyTimeoutSec,
  });
}

/** Deploys if needed, waits for running, then freezes or thaws as `frozen` asks. */
async function converge(ctx: Context, uid: string, inputs: Props): Promise<void> {
  const { workloads, sandboxes } = ctx.client;
  let status = (await workloads.state(uid)).status;
  if (status === "registered" || status === "error") {
    ctx.log(`deploying sandbox ${uid}`);
    status = (await workloads.deploy(uid)).state.status;
  }
  if (status === "frozen" && inputs.frozen === false) {
    ctx.log(`thawing sandbox ${uid}`);
    await sandboxes.thaw(uid);
    status = "running";
  }
  if (status !== "running" && status !== "frozen") {
    status = (
      await workloads.waitForStatus(uid, ["running", "frozen"], { timeoutMs: readyTimeoutMs(inputs) })
    ).status;
  }
  if (inputs.frozen === true && status === "running") {
    ctx.log(`freezing sandbox ${uid}`);
    await sandboxes.freeze(uid);
  }
}

async function register(ctx: Context, inputs: Props): Promise<{ uid: string }> {
  const { workloads, sandboxes } = ctx.client;
  const name = inputs.name as string;
  if (inputs.adoptUid) {
    const w = await liveWorkload(ctx, inputs.adoptUid as string);
    if (w?.type !== "SANDBOX") throw new Error(`cannot adopt ${String(inputs.adoptUid)}: not a live sandbox`);
    return w;
  }
  if (inputs.forkFrom) {
    const parent = inputs.forkFrom as string;
    ctx.log(`forking sandbox ${parent}`);
    const body = compact({ name, project_id: inputs.projectId, sandbox_config: sandboxConfig(inputs) });
    return createWorkloadOnce(ctx, name, "SANDBOX", () => sandboxes.fork(parent, body));
  }
  return createWorkloadOnce(ctx, name, "SANDBOX", () => workloads.create(createBody(inputs)));
}

export const sandbox: ResourceModule = {
  name: "Sandbox",

  check(_olds, news) {
    return { inputs: news, failures: check(news) };
  },

  diff(_id, olds, news) {
    return diffFields(RULES, olds, news);
  },

  async create(ctx, inputs) {
    const created = await register(ctx, inputs);
    const uid = created.uid;
    const failure = `sandbox ${uid} was created but did not come up`;
    const outputs = await settle(ctx, uid, inputs, outputsOf, failure, async () => {
      await converge(ctx, uid, inputs);
      // A fork copies its parent's ports and keys: bring them to what the program says.
      const patch = patchBody(inputsOf(await ctx.client.workloads.get(uid), inputs), inputs);
      if (Object.keys(patch).length) await ctx.client.workloads.update(uid, patch);
    });
    return { id: uid, outputs };
  },

  async read(ctx, id, olds) {
    const w = await liveWorkload(ctx, id);
    if (!w) return undefined;
    const inputs = keepProgramShape(RULES, olds, inputsOf(w, olds));
    return { id, inputs, outputs: outputsOf(w, inputs) };
  },

  async update(ctx, id, olds, news) {
    return settle(ctx, id, news, outputsOf, `updating sandbox ${id} failed`, async () => {
      const patch = patchBody(olds, news);
      if (Object.keys(patch).length) {
        ctx.log(`updating sandbox ${id} (${Object.keys(patch).join(", ")}) without redeploy`);
        await ctx.client.workloads.update(id, patch);
      }
      await converge(ctx, id, news);
    });
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.workloads.delete(id));
  },
};
