/**
 * The volume list (`list "cws_volume"`, and `cws adopt`'s volumes): the org's volumes, by the
 * list route's filter (the workload a volume is attached to). Deleted ones are left out.
 */
import { text, type ListDefinition } from "../../core/list.ts";

export const volumeList: ListDefinition = {
  kind: "Volume",
  description: "The org's volumes, in the service's order; deleted ones are left out.",
  filters: {
    workloadUid: text("workload_uid", "Only the volumes attached to this workload (its uid)."),
  },
  async *list(client, f, signal) {
    const query = f.workloadUid ? { workload_uid: String(f.workloadUid) } : {};
    for await (const v of client.volumes.iterate(query, { signal })) {
      if (v.deleted_by) continue;
      yield { kind: "Volume", uid: v.uid, name: v.name, createdAt: v.created_at, summary: v.state.status };
    }
  },
};
