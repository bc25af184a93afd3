/**
 * The workload list (`list "cws_workload"`, and `cws adopt`'s workloads): the org's RENTAL, VM
 * and BM workloads, by the list route's filters (type, status, name, project). Sandboxes are the
 * sandbox list's; deleted workloads are left out (they cannot be managed).
 */
import { WORKLOAD_STATUSES } from "../../../api/index.ts";
import { listDefinition, oneOf, pageOf, text } from "../../core/list.ts";

const TYPES = ["RENTAL", "VM", "BM"] as const;
const STATUSES = WORKLOAD_STATUSES.filter((s) => s !== "deleted" && s !== "frozen") as [string, ...string[]];

export const workloadList = listDefinition({
  kind: "Workload",
  description:
    "The org's workloads (RENTAL, VM and BM; sandboxes are `cws_sandbox`'s), in the service's order; deleted ones are left out.",
  filters: {
    type: oneOf("type", TYPES, `Only workloads of this type: ${TYPES.join(", ")}.`),
    status: oneOf("status", STATUSES, `Only workloads in this status: ${STATUSES.join(", ")}.`),
    name: text("name", "Only workloads of this exact name."),
    projectId: text("project_id", "Only workloads of this project."),
  },
  async page(client, f, at, signal) {
    const query = {
      ...(f.type ? { type: f.type as (typeof TYPES)[number] } : {}),
      ...(f.status ? { status: f.status as (typeof WORKLOAD_STATUSES)[number] } : {}),
      ...(f.name ? { name: String(f.name) } : {}),
      ...(f.projectId ? { project_id: String(f.projectId) } : {}),
      ...at,
    };
    return pageOf(await client.workloads.list(query, { signal }), (w) =>
      w.type === "SANDBOX" || w.state.status === "deleted"
        ? undefined
        : {
            kind: "Workload",
            uid: w.uid,
            name: w.name,
            createdAt: w.created_at,
            summary: `${w.type}, ${w.state.status}`,
          },
    );
  },
});
