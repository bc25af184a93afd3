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
  RESOURCE_OUTPUTS,
  SANDBOX_SERVICE_INPUTS,
  WORKLOAD_FIELDS,
  changeOf,
  nameViolation,
  patchAccepts,
  portViolations,
  sandboxTimeoutViolation,
  type ForkBody,
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
import { RENAMED, failureOf, propsFrom, serviceField, toWire } from "./wire.ts";
import { fixedMismatches, refuseSelfAdoption } from "./workload.ts";

const NAMES = RENAMED.Sandbox;

/** The service field (WORKLOAD_FIELDS) a sandbox input is sent in: `ttlSec` is in sandbox_config. */
const fieldOf = (input: string) => serviceField(input, NAMES) as WorkloadFieldName;

/** How a change of a sandbox input that stands for a service field is applied (WORKLOAD_FIELDS). */
const kind = (input: string) => changeOf("SANDBOX", fieldOf(input));

/** Inputs a PATCH changes: those whose service field a sandbox PATCH accepts (WORKLOAD_FIELDS). */
const PATCH_INPUTS = SANDBOX_SERVICE_INPUTS.filter((k) => patchAccepts("SANDBOX", fieldOf(k)));

const RULES: Record<string, FieldRule> = {
  template: { kind: kind("template") },
  resourceName: { kind: kind("resourceName") },
  forkFrom: { kind: "replace" },
  name: { kind: kind("name") },
  projectId: { kind: kind("projectId") },
  sshKeys: { kind: kind("sshKeys"), normalise: sortedStrings },
  ports: { kind: kind("ports"), normalise: portsNormaliser(false) },
  ttlSec: { kind: kind("ttlSec"), normalise: (v) => v || undefined },
  idleTimeoutSec: { kind: kind("idleTimeoutSec"), normalise: (v) => v || undefined },
  // Unset: not managed, so a pause by the idle timeout is not undone. false: kept running.
  frozen: { kind: "update" },
  readyTimeoutSec: { kind: "update", default: DEFAULT_READY_TIMEOUT_SEC },
};

const known = (v: unknown) => v !== undefined && v !== UNKNOWN;

function check(news: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const add = (v: { field: string; message: string } | undefined) => {
    if (v) failures.push(failureOf(v, NAMES));
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

function createBody(inputs: Props): WorkloadCreate {
  const fields = toWire<Omit<WorkloadCreate, "type">>(compact(pick(inputs, SANDBOX_SERVICE_INPUTS)), NAMES);
  return { type: "SANDBOX", ...fields };
}

/** The PATCH value that clears an input the program no longer sets: 0 turns a timeout off. */
function cleared(input: string): unknown {
  const field = fieldOf(input);
  return field === "sandbox_config" ? 0 : (WORKLOAD_FIELDS[field] as { cleared?: unknown }).cleared;
}

/** The inputs a PATCH changes where `want` differs from `have`. */
function changedInputs(have: Props, want: Props): string[] {
  const d = diffFields(RULES, have, want).detail;
  return PATCH_INPUTS.filter((k) => d[k]);
}

/**
 * The PATCH setting `inputs` to their values in `want`. Only the timeout that changed is sent:
 * the other one stays as the service has it.
 */
function patchBody(want: Props, inputs: readonly string[]): WorkloadPatch {
  return toWire<WorkloadPatch>(Object.fromEntries(inputs.map((k) => [k, want[k] ?? cleared(k)])), NAMES);
}

function outputsOf(w: Workload, inputs: Props): Props {
  return compact({ ...inputs, ...propsFrom(w, RESOURCE_OUTPUTS.Sandbox, NAMES) });
}

function inputsOf(w: Workload, olds: Props): Props {
  const read = propsFrom(w, [...SANDBOX_SERVICE_INPUTS, "forkFrom"], NAMES);
  const fork = Boolean(read.forkFrom && olds.forkFrom);
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
    const body = toWire<ForkBody>(
      compact(pick(inputs, ["name", "projectId", "ttlSec", "idleTimeoutSec"])),
      NAMES,
    );
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
      const patch = patchBody(inputs, changedInputs(pick(have, Object.keys(inputs)), inputs));
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
      const changed = changedInputs(olds, news);
      const patch = patchBody(news, changed);
      if (Object.keys(patch).length) {
        ctx.log(`updating sandbox ${id} (${changed.join(", ")}) without redeploy`);
        await ctx.client.workloads.update(id, patch);
      }
      await converge(ctx, id, news, olds);
    });
  },

  async delete(ctx, id) {
    await deleteIfPresent(() => ctx.client.workloads.delete(id));
  },
};
