/**
 * The sandbox template list (`list "cws_sandbox_template"`, and `cws adopt`'s templates): the
 * org's own templates (kind USER, made from a sandbox), by the list route's filters (kind,
 * status). The platform's FRESH templates are listed only when `kind` asks for them: they are
 * visible to every org, to make sandboxes from, not the org's to manage.
 */
import { SANDBOX_TEMPLATE_KINDS, SANDBOX_TEMPLATE_STATUSES } from "../../../api/index.ts";
import { oneOf, type ListDefinition } from "../../core/list.ts";

export const sandboxTemplateList: ListDefinition = {
  kind: "SandboxTemplate",
  description:
    "The org's sandbox templates (kind USER) in the service's order; the platform's FRESH ones only with `kind = \"FRESH\"`.",
  filters: {
    kind: oneOf(
      "kind",
      SANDBOX_TEMPLATE_KINDS,
      "USER (the default: the org's own, made from a sandbox) or FRESH (the platform's, visible to every org: to make sandboxes from, not to manage).",
    ),
    status: oneOf(
      "status",
      SANDBOX_TEMPLATE_STATUSES,
      `Only templates in this status: ${SANDBOX_TEMPLATE_STATUSES.join(", ")}.`,
    ),
  },
  async *list(client, f, signal) {
    const kind = (f.kind ?? "USER") as (typeof SANDBOX_TEMPLATE_KINDS)[number];
    const query = {
      kind,
      ...(f.status ? { status: f.status as (typeof SANDBOX_TEMPLATE_STATUSES)[number] } : {}),
    };
    for await (const t of client.sandboxTemplates.iterate(query, { signal })) {
      if (t.kind !== kind) continue;
      yield { kind: "SandboxTemplate", uid: t.uid, name: t.name, createdAt: t.created_at, summary: t.status };
    }
  },
};
