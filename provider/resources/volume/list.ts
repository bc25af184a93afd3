/**
 * The volume list (`list "cws_volume"`, and `cws adopt`'s volumes): the org's volumes, by the
 * list route's filter (the workload a volume is attached to). Deleted ones are left out.
 */
import { listDefinition, pageOf, text } from "../../core/list.ts";

export const volumeList = listDefinition({
  kind: "Volume",
  description: "The org's volumes, in the service's order; deleted ones are left out.",
  filters: {
    workloadUid: text("workload_uid", "Only the volumes attached to this workload (its uid)."),
  },
  async page(client, f, at, signal) {
    const query = { ...(f.workloadUid ? { workload_uid: String(f.workloadUid) } : {}), ...at };
    return pageOf(await client.volumes.list(query, { signal }), (v) =>
      v.deleted_by
        ? undefined
        : { kind: "Volume", uid: v.uid, name: v.name, createdAt: v.created_at, summary: v.state.status },
    );
  },
});
