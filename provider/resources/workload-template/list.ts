/**
 * The workload template list (`list "cws_workload_template"`, and `cws adopt`'s templates): the
 * org's own (PRIVATE) templates, by the list route's filter (the workload type they make). PUBLIC
 * templates are visible to every org and are not the org's to manage.
 */
import { listDefinition, oneOf, pageOf } from "../../core/list.ts";

const TYPES = ["RENTAL", "VM", "BM"] as const;

export const workloadTemplateList = listDefinition({
  kind: "WorkloadTemplate",
  description: "The org's own (PRIVATE) workload templates, in the service's order.",
  filters: {
    type: oneOf("type", TYPES, `Only templates that make this workload type: ${TYPES.join(", ")}.`),
  },
  async page(client, f, at, signal) {
    const query = {
      visibility: "PRIVATE" as const,
      ...(f.type ? { type: f.type as (typeof TYPES)[number] } : {}),
      ...at,
    };
    return pageOf(await client.templates.list(query, { signal }), (t) =>
      t.visibility !== "PRIVATE"
        ? undefined
        : {
            kind: "WorkloadTemplate",
            uid: t.uid,
            name: t.name,
            createdAt: t.created_at ?? "",
            summary: t.type,
          },
    );
  },
});
