import { type SandboxTemplatePatch, type PublishBody, type SandboxTemplateQuery } from "../../api/index.ts";
import { costPerHour } from "../common/billing.ts";
import { ResourceService } from "../common/resource-service.ts";
import type { ServiceDeps } from "../common/service-deps.ts";
import type { PageResult } from "../common/pages.ts";
import { ApiError } from "../http/errors.ts";
import type { SandboxTemplateRecord, WorkloadRecord } from "../store/records.ts";
import { newUid } from "../common/util.ts";

/**
 * Sandbox templates (spec 4.3): FRESH platform templates (every org, read-only: 403
 * SANDBOX_TEMPLATE_READ_ONLY) and the org's own USER templates, made by publishing a sandbox
 * (PENDING until its files are copied, then READY or FAILED; a PENDING one cannot be deleted:
 * 409). Another org's USER template is 404. The files of USER templates are the sandbox
 * service's (sandbox/snapshots.ts); this class holds the records and their rules.
 */
export class SandboxTemplateService extends ResourceService<SandboxTemplateRecord, SandboxTemplatePatch> {
  constructor(deps: ServiceDeps) {
    super(deps, deps.store.sandboxTemplates, {
      name: "sandbox-templates",
      noun: "sandbox template",
      notFound: "SANDBOX_TEMPLATE_NOT_FOUND",
      sees: (org, t) => t.org === org || t.org === null,
      visible: (org) => deps.store.sandboxTemplates.list(org, true),
      writable: (_org, t, action) => {
        if (t.kind !== "USER")
          throw new ApiError(
            "SANDBOX_TEMPLATE_READ_ONLY",
            `sandbox template ${t.uid} is a FRESH platform template and cannot be ${action === "deleted" ? "deleted" : "modified"}`,
          );
      },
      deletable: (t) => {
        if (t.status === "PENDING")
          throw new ApiError(
            "SANDBOX_TEMPLATE_PENDING",
            `sandbox template ${t.uid} is still publishing (PENDING) and cannot be deleted yet`,
          );
      },
      apply: (t, patch) => {
        if (patch.display_name !== undefined) t.display_name = patch.display_name;
        if (patch.description !== undefined) t.description = patch.description;
        return true;
      },
    });
  }

  /** The template a SANDBOX workload was made from, if it still exists. */
  sourceOf(w: WorkloadRecord): SandboxTemplateRecord | undefined {
    const uid = w.sandbox_config?.template_uid;
    return uid ? this.docs.get(uid) : undefined;
  }

  /** A page of the FRESH templates and the org's USER ones, filtered by kind and status. */
  override list(org: string, q: SandboxTemplateQuery): PageResult<SandboxTemplateRecord> {
    return super.list(org, q, (t) => (!q.kind || t.kind === q.kind) && (!q.status || t.status === q.status));
  }

  /**
   * The PENDING USER template a publish of sandbox w creates: it runs on the resources and costs
   * of the template w was made from (w's own when that one is gone).
   */
  createPending(w: WorkloadRecord, body: PublishBody): SandboxTemplateRecord {
    const src = this.sourceOf(w);
    const now = this.now();
    const tpl: SandboxTemplateRecord = {
      uid: newUid("tpl"),
      org: w.org,
      name: body.name,
      display_name: body.display_name ?? body.name,
      description: body.description ?? "",
      kind: "USER",
      status: "PENDING",
      resource_name: src?.resource_name ?? w.resource_name,
      cost_per_hour: src?.cost_per_hour ?? costPerHour(this.store, w),
      frozen_cost_per_hour: src?.frozen_cost_per_hour ?? 0,
      desktop: Boolean(src?.desktop),
      source_workload_uid: w.uid,
      created_at: now,
      updated_at: now,
    };
    this.docs.put(tpl);
    return tpl;
  }

  /** Ends a publish: the template (unless deleted meanwhile) becomes READY or FAILED. */
  settle(uid: string, status: "READY" | "FAILED"): void {
    const cur = this.docs.get(uid);
    if (!cur) return;
    cur.status = status;
    cur.updated_at = this.now();
    this.docs.put(cur);
  }
}
