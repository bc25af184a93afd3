/**
 * Sandbox: an isolated Linux environment made from a sandbox template.
 *
 * Update in place, without redeploy: name, projectId, sshKeys, ports, ttlSec, idleTimeoutSec;
 * frozen maps to freeze/thaw. Replace: template, resourceName, forkFrom. create registers,
 * deploys and waits for running, or forks `forkFrom`. Only fields the service accepts for
 * sandboxes are ever sent.
 */
import {
  LIMITS,
  changeOf,
  nameViolation,
  portViolations,
  sandboxTimeoutViolation,
  type Workload,
  type WorkloadCreate,
  type WorkloadFieldName,
  type WorkloadPatch,
} from "../api/index.ts";
import {
  DEFAULT_READY_TIMEOUT_SEC,
  compact,
  deleteIfPresent,
  onePerProperty,
  pick,
  waitOptions,
} from "./common.ts";
import { createWorkloadOnce, forkOnce, liveWorkload, settle, transitionOnce } from "./workload-core.ts";
import { diffFields, keepProgramShape, portsNormaliser, sortedStrings, type FieldRule } from "./diff.ts";
import { type CheckFailure, type Context, type Props, type ResourceModule } from "./resource.ts";
import { UNKNOWN } from "./unknowns.ts";
import { toWire, wireFieldToProperty } from "./wire.ts";
import { fixedMismatches, refuseSelfAdoption, toInputWords } from "./workload.ts";

/** The kind of a change of the service field `f` on a sandbox (WORKLOAD_FIELDS). */
const kind = (f: WorkloadFieldName) => changeOf("SANDBOX", f);

const RULES: Record<string, FieldRule> = {
  template: { kind: kind("image") },
  resourceName: { kind: kind("resource_name") },
  forkFrom: { kind: "replace" },
  name: { kind: kind("name") },
  projectId: { kind: kind("project_id") },
  sshKeys: { kind: kind("ssh_keys"), normalise: sortedStrings },
  ports: { kind: kind("ports"), normalise: portsNormaliser(false) },
  ttlSec: { kind: kind("sandbox_config"), normalise: (v) => v || undefined },
  idleTimeoutSec: { kind: kind("sandbox_config"), normalise: (v) => v || undefined },
  // Unset: not managed, so a pause by the idle timeout is not undone. false: kept running.
  frozen: { kind: "update" },
  readyTimeoutSec: { kind: "update", default: DEFAULT_READY_TIMEOUT_SEC },
};

const known = (v: unknown) => v !== undefined && v !== UNKNOWN;

function check(news: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  // The Sandbox resource spells sandbox_config.* as top-level inputs (ttlSec, idleTimeoutSec).
  const own = (text: string) => toInputWords(text).replace(/sandboxConfig\./g, "");
  const add = (v: { field: string; message: string } | undefined) => {
    if (v) failures.push({ property: own(wireFieldToProperty(v.field)), reason: own(v.message) });
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
      // Port 22 is reported once, as reserved (above), not also as out of range.
      const reserved = n === LIMITS.sandboxReservedPort;
      if (
        typeof n === "number" &&
        !reserved &&
        (n < LIMITS.portMin || n > LIMITS.portMax || !Number.isInteger(n))
      ) {
        failures.push({
          property: `ports[${i}].port`,
          reason: `ports[${i}].port must be an integer between 1024 and 65535`,
        });
      }
      if (p.protocol !== undefined && !["TCP", "UDP", "SCTP", UNKNOWN].includes(p.protocol as string)) {
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
  // Only the timeout that changed is sent: the other one stays as the service has it.
  const cfg: NonNullable<WorkloadPatch["sandbox_config"]> = {};
  if (d.ttlSec) cfg.ttl_sec = (want.ttlSec as number | undefined) ?? 0;
  if (d.idleTimeoutSec) cfg.idle_timeout_sec = (want.idleTimeoutSec as number | undefined) ?? 0;
  if (Object.keys(cfg).length) body.sandbox_config = cfg;
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

/**
 * Deploys if needed, waits for running, then freezes or thaws as `frozen` asks. `frozen: true`
 * removed from the program thaws the sandbox (its empty value), after which it is unmanaged.
 */
async function converge(ctx: Context, uid: string, inputs: Props, olds: Props = {}): Promise<void> {
  const { workloads, sandboxes } = ctx.client;
  const frozen = inputs.frozen ?? (olds.frozen === true ? false : undefined);
  let status = (await workloads.state(uid)).status;
  if (status === "registered" || status === "error") {
    ctx.log(`deploying sandbox ${uid}`);
    const from = status;
    await transitionOnce(
      ctx,
      uid,
      "deploy",
      () => workloads.deploy(uid),
      (s) => s !== from,
    );
    status = "provisioning";
  }
  if (status === "frozen" && frozen === false) {
    ctx.log(`thawing sandbox ${uid}`);
    await transitionOnce(
      ctx,
      uid,
      "thaw",
      () => sandboxes.thaw(uid),
      (s) => s !== "frozen",
    );
    status = "running";
  }
  if (status !== "running" && status !== "frozen") {
    status = (await workloads.waitForStatus(uid, ["running", "frozen"], waitOptions(ctx, inputs))).status;
  }
  if (frozen === true && status === "running") {
    ctx.log(`freezing sandbox ${uid}`);
    await transitionOnce(
      ctx,
      uid,
      "freeze",
      () => sandboxes.freeze(uid),
      (s) => s === "frozen",
    );
  }
}

async function register(ctx: Context, inputs: Props): Promise<{ uid: string }> {
  const name = inputs.name as string;
  if (inputs.adoptUid) return adopt(ctx, inputs.adoptUid as string, inputs);
  if (inputs.forkFrom) {
    const parent = inputs.forkFrom as string;
    ctx.log(`forking sandbox ${parent}`);
    const body = compact({ name, project_id: inputs.projectId, sandbox_config: sandboxConfig(inputs) });
    return forkOnce(ctx, parent, body, name);
  }
  return createWorkloadOnce(ctx, createBody(inputs));
}

/** Takes a live sandbox under management; its replace-only inputs must match the program. */
async function adopt(ctx: Context, uid: string, inputs: Props): Promise<{ uid: string }> {
  const w = await liveWorkload(ctx, uid);
  if (w?.type !== "SANDBOX") throw new Error(`cannot adopt ${uid}: not a live sandbox`);
  const have = inputsOf(w, { ...inputs, forkFrom: inputs.forkFrom, resourceName: inputs.resourceName });
  const refused = fixedMismatches(RULES, have, inputs, "sandbox", uid);
  if (refused) throw new Error(refused);
  return w;
}

export const sandbox: ResourceModule = {
  name: "Sandbox",

  check(_olds, news) {
    return { inputs: news, failures: onePerProperty(check(news)) };
  },

  diff(id, olds, news) {
    const d = diffFields(RULES, olds, news);
    refuseSelfAdoption(id, news, d.replaces, "sandbox");
    return d;
  },

  async create(ctx, inputs) {
    const created = await register(ctx, inputs);
    const uid = created.uid;
    const failure = `sandbox ${uid} was created but did not come up`;
    const outputs = await settle(ctx, uid, inputs, outputsOf, failure, async () => {
      await converge(ctx, uid, inputs);
      // A fork copies its parent's ports and keys: bring them to what the program says.
      // Inputs the program does not set stay as the service has them.
      const have = inputsOf(await ctx.client.workloads.get(uid), inputs);
      const patch = patchBody(pick(have, Object.keys(inputs)), inputs);
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
      await converge(ctx, id, news, olds);
    });
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.workloads.delete(id));
  },
};
