/**
 * The sandbox list (`list "cws_sandbox"`, and `cws adopt`'s sandboxes): the org's sandboxes (the
 * workload list route with type SANDBOX), by its filters (status, name, project). Deleted ones
 * are left out.
 */
import { WORKLOAD_STATUSES } from "../../../api/index.ts";
import { listDefinition, oneOf, pageOf, text } from "../../core/list.ts";

const STATUSES = WORKLOAD_STATUSES.filter((s) => s !== "deleted") as [string, ...string[]];

export const sandboxList = listDefinition({
  kind: "Sandbox",
  description: "The org's sandboxes, in the service's order; deleted ones are left out.",
  filters: {
    status: oneOf("status", STATUSES, `Only sandboxes in this status: ${STATUSES.join(", ")}.`),
    name: text("name", "Only sandboxes of this exact name."),
    projectId: text("project_id", "Only sandboxes of this project."),
  },
  async page(client, f, at, signal) {
    const query = {
      type: "SANDBOX" as const,
      ...(f.status ? { status: f.status as (typeof WORKLOAD_STATUSES)[number] } : {}),
      ...(f.name ? { name: String(f.name) } : {}),
      ...(f.projectId ? { project_id: String(f.projectId) } : {}),
      ...at,
    };
    return pageOf(await client.workloads.list(query, { signal }), (w) =>
      w.type !== "SANDBOX" || w.state.status === "deleted"
        ? undefined
        : { kind: "Sandbox", uid: w.uid, name: w.name, createdAt: w.created_at, summary: w.state.status },
    );
  },
});
