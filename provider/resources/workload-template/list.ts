/**
 * The workload template list (`list "cws_workload_template"`, and `cws adopt`'s templates): the
 * org's own (PRIVATE) templates, by the list route's filter (the workload type they make). PUBLIC
 * templates are visible to every org and are not the org's to manage.
 */
import { oneOf, type ListDefinition } from "../../core/list.ts";

const TYPES = ["RENTAL", "VM", "BM"] as const;

export const workloadTemplateList: ListDefinition = {
  kind: "WorkloadTemplate",
  description: "The org's own (PRIVATE) workload templates, in the service's order.",
  filters: {
    type: oneOf("type", TYPES, `Only templates that make this workload type: ${TYPES.join(", ")}.`),
  },
  async *list(client, f, signal) {
    const query = {
      visibility: "PRIVATE" as const,
      ...(f.type ? { type: f.type as (typeof TYPES)[number] } : {}),
    };
    for await (const t of client.templates.iterate(query, { signal })) {
      if (t.visibility !== "PRIVATE") continue;
      yield {
        kind: "WorkloadTemplate",
        uid: t.uid,
        name: t.name,
        createdAt: t.created_at ?? "",
        summary: t.type,
      };
    }
  },
};
