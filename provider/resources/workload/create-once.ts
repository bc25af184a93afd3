/**
 * Creating a workload (RENTAL, VM, BM or SANDBOX) or forking a sandbox at most once: a create
 * whose answer was lost is found again among the recent workloads of its name (createOnce).
 */
import type { ForkBody, Workload, WorkloadCreate, WorkloadOperation } from "../../../api/index.ts";
import { collect, createOnce, createdSince } from "../../core/create-once.ts";
import type { Context } from "../../core/types.ts";
import { liveWorkload } from "./live.ts";
import { madeBy } from "./record-match.ts";

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
