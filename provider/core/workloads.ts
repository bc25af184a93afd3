/**
 * What Workloads and Sandboxes share on the wire (a sandbox is a SANDBOX workload): reading a live
 * workload, creating or forking one at most once, and lifecycle transitions run once.
 */
import { z } from "zod";
import {
  Url,
  WorkloadStateSummary,
  type ForkBody,
  type Workload,
  type WorkloadCreate,
  type WorkloadOperation,
  type WorkloadStatus,
} from "../../api/index.ts";
import { isAmbiguous } from "../../client/errors.ts";
import { CREATE_ATTEMPTS, collect, createOnce, createdSince } from "./create-once.ts";
import { messageOf, unlessGone } from "./values.ts";
import { canonical } from "./diff.ts";
import { stateOutputs, type OutputDef } from "./definition.ts";
import type { Context, Props } from "./types.ts";
import { fromStateSummary } from "./wire.ts";

/** The workload, or undefined when it is gone or soft-deleted. */
export async function liveWorkload(ctx: Context, uid: string): Promise<Workload | undefined> {
  const w = await unlessGone(() => ctx.client.workloads.get(uid));
  return w && w.state.status !== "deleted" ? w : undefined;
}

const ports = (
  list: readonly { port: number; protocol?: string; routing?: string }[] | undefined,
  sandbox: boolean,
) =>
  (list ?? [])
    .map((p) => ({
      port: p.port,
      protocol: p.protocol ?? "TCP",
      routing: sandbox ? undefined : (p.routing ?? "PROXIED"),
    }))
    .sort((a, b) => canonical(a).localeCompare(canonical(b)));

const volumes = (list: readonly { uid: string; mount_path: string; read_only?: boolean }[] | undefined) =>
  (list ?? [])
    .map((v) => ({ uid: v.uid, mount_path: v.mount_path, read_only: v.read_only ?? false }))
    .sort((a, b) => a.uid.localeCompare(b.uid));

/**
 * What a create body asks for, keyed by the body's own field names, with the defaults the
 * service fills in: recordView gives the same shape from a full workload record, and the two
 * are equal exactly when the record could be the result of that request. Passwords, which the
 * service never returns, are left out.
 */
export function requestedView(body: WorkloadCreate): Props {
  const sandbox = body.type === "SANDBOX";
  return {
    type: body.type,
    name: body.name,
    image: body.image,
    resource_name: body.resource_name,
    region: body.region,
    reservation_uid: body.reservation_uid,
    envs: body.envs ?? [],
    ports: ports(body.ports, sandbox),
    commands: body.commands ?? [],
    args: body.args ?? [],
    registry_auth: body.registry_auth
      ? { server: body.registry_auth.server, username: body.registry_auth.username }
      : null,
    ssh_keys: body.ssh_keys ?? [],
    volumes: volumes(body.volumes),
    bm_config: body.type === "BM" ? { hostname: body.bm_config?.hostname ?? body.name } : undefined,
    project_id: body.project_id || null,
    experiments: body.experiments ?? {},
    sandbox_config: sandbox
      ? {
          ttl_sec: body.sandbox_config?.ttl_sec ?? 0,
          idle_timeout_sec: body.sandbox_config?.idle_timeout_sec ?? 0,
        }
      : undefined,
  };
}

/**
 * The record in the shape of requestedView: each body field where the record keeps it (a
 * sandbox's image is its template, wire.ts), resource_name only when the request named one.
 */
export function recordView(w: Workload, body: WorkloadCreate): Props {
  const sandbox = w.type === "SANDBOX";
  return {
    type: w.type,
    name: w.name,
    image: sandbox ? w.sandbox_config?.template_uid : w.image,
    resource_name: body.resource_name === undefined ? undefined : w.resource.name,
    region: w.bm_config?.region,
    reservation_uid: w.reservation_uid,
    envs: w.envs,
    ports: ports(w.ports, sandbox),
    commands: w.commands,
    args: w.args,
    registry_auth: w.registry_auth
      ? { server: w.registry_auth.server, username: w.registry_auth.username }
      : null,
    ssh_keys: w.ssh_keys,
    volumes: volumes(w.volumes),
    bm_config: w.type === "BM" ? { hostname: w.bm_config?.hostname } : undefined,
    project_id: w.project_id || null,
    experiments: Object.fromEntries(Object.entries(w.experiments).filter(([, v]) => v !== undefined)),
    sandbox_config: sandbox
      ? {
          ttl_sec: w.sandbox_config?.ttl_sec,
          idle_timeout_sec: w.sandbox_config?.idle_timeout_sec,
        }
      : undefined,
  };
}

/** Whether `w` is what `body` would have made. */
export function madeBy(body: WorkloadCreate, w: Workload): boolean {
  return canonical(recordView(w, body)) === canonical(requestedView(body));
}

/** Full records of the live workloads named `name` of `type` created at or after `since`. */
async function recentByName(ctx: Context, name: string, type: string, since: number): Promise<Workload[]> {
  const { workloads } = ctx.client;
  const items = await collect(
    workloads.iterate({ name, type: type as WorkloadOperation["type"] }),
    (w) => w.name === name && createdSince(w.created_at, since),
  );
  const full = await Promise.all(items.map((w) => liveWorkload(ctx, w.uid)));
  return full.filter((w): w is Workload => w !== undefined);
}

/** Registers a workload at most once: a lost create is found by its whole request (see createOnce). */
export function createWorkloadOnce(ctx: Context, body: WorkloadCreate): Promise<{ uid: string }> {
  return createOnce({
    what: `${body.type === "SANDBOX" ? "sandbox" : "workload"} ${body.name}`,
    create: () => ctx.client.workloads.create(body),
    find: async (since) =>
      (await recentByName(ctx, body.name, body.type, since)).filter((w) => madeBy(body, w)),
    log: (m) => ctx.log(m),
  });
}

/** Forks a sandbox at most once: a lost fork is the child of `parent` with the requested name and settings. */
export function forkOnce(
  ctx: Context,
  parent: string,
  body: ForkBody,
  name: string,
): Promise<{ uid: string }> {
  const cfg = body.sandbox_config;
  return createOnce({
    what: `sandbox ${name} (fork of ${parent})`,
    create: () => ctx.client.sandboxes.fork(parent, body),
    find: async (since) =>
      (await recentByName(ctx, name, "SANDBOX", since)).filter(
        (w) =>
          w.sandbox_config?.parent_workload_uid === parent &&
          (body.project_id === undefined || (w.project_id ?? "") === body.project_id) &&
          (cfg?.ttl_sec === undefined || w.sandbox_config.ttl_sec === cfg.ttl_sec) &&
          (cfg?.idle_timeout_sec === undefined || w.sandbox_config.idle_timeout_sec === cfg.idle_timeout_sec),
      ),
    log: (m) => ctx.log(m),
  });
}

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

/** The record embeds the whole inventory resource whose name the create body gives. */
export const RESOURCE_NAME_WIRE = { record: "resource.name" } as const;

const state = WorkloadStateSummary.shape;

/** Outputs every workload record has (RENTAL, VM, BM and SANDBOX), from its state summary. */
export const workloadOutputs: Record<string, OutputDef> = {
  ...stateOutputs(
    state.status,
    "The service's status: registered, provisioning, running, error, suspended, frozen.",
  ),
  urls: { type: z.array(Url), description: "Public URLs, one per port.", wire: fromStateSummary("urls") },
  sshPort: { type: z.number().int(), description: "The SSH port.", wire: fromStateSummary("sshPort") },
};
