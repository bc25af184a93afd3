import type { WorkloadEvent } from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { sshKeyView } from "../ssh-keys/views.ts";
import { sandboxTemplateView, workloadTemplateView } from "../templates/views.ts";
import { volumeView } from "../volumes/views.ts";
import { workloadOperation } from "../workloads/views.ts";

/**
 * What the dashboard shows of one org: everything alive, as the API's own views render it, and
 * the inventory every org deploys on (capacity and units in use, all orgs together).
 */
export function orgOverview(ctx: ServerContext, org: string) {
  const { store } = ctx;
  const all = store.workloads.list(org);
  const live = all.filter((w) => w.status !== "deleted").map((w) => workloadOperation(store, w));
  return {
    org,
    credits: ctx.services.admin.credits(org),
    rate_limit: ctx.rateLimits.stats(org),
    inventory: ctx.services.admin.inventory(),
    workloads: live.filter((w) => w.type !== "SANDBOX"),
    sandboxes: live.filter((w) => w.type === "SANDBOX"),
    deleted_workloads: all.length - live.length,
    volumes: store.volumes.list(org).map((v) => volumeView(store, v)),
    ssh_keys: store.sshKeys.list(org).map(sshKeyView),
    templates: ctx.services.workloadTemplates.visible(org).map(workloadTemplateView),
    sandbox_templates: store.sandboxTemplates.list(org, true).map(sandboxTemplateView),
  };
}
export type OrgOverview = ReturnType<typeof orgOverview>;

/** The newest `limit` events of a workload of the org, oldest first; undefined when there is none. */
export function workloadEvents(ctx: ServerContext, org: string, uid: string, limit = 200) {
  const w = ctx.store.workloads.getIn(org, uid);
  if (!w) return undefined;
  const rows = ctx.store.events<WorkloadEvent>("workload", w.uid);
  return { uid: w.uid, name: w.name, items: rows.slice(-limit).map((r) => r.record) };
}
