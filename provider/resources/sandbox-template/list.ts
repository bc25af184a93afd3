/**
 * The sandbox template list (`list "cws_sandbox_template"`, and `cws adopt`'s templates): the
 * org's own templates (kind USER, made from a sandbox), by the list route's filters (kind,
 * status). The platform's FRESH templates are listed only when `kind` asks for them: they are
 * visible to every org, to make sandboxes from, not the org's to manage.
 */
import { SANDBOX_TEMPLATE_KINDS, SANDBOX_TEMPLATE_STATUSES } from "../../../api/index.ts";
import { listDefinition, oneOf, pageOf } from "../../core/list.ts";

export const sandboxTemplateList = listDefinition({
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
  async page(client, f, at, signal) {
    const kind = (f.kind ?? "USER") as (typeof SANDBOX_TEMPLATE_KINDS)[number];
    const query = {
      kind,
      ...(f.status ? { status: f.status as (typeof SANDBOX_TEMPLATE_STATUSES)[number] } : {}),
      ...at,
    };
    return pageOf(await client.sandboxTemplates.list(query, { signal }), (t) =>
      t.kind !== kind
        ? undefined
        : { kind: "SandboxTemplate", uid: t.uid, name: t.name, createdAt: t.created_at, summary: t.status },
    );
  },
});
