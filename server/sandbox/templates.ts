import type { PublishBody, SandboxTemplatePatch, SandboxTemplateQuery } from "../../api/index.ts";
import { costPerHour } from "../billing.ts";
import { ApiError } from "../http/errors.ts";
import { paginate, type PageResult } from "../http/io.ts";
import type { Lifecycle } from "../lifecycle.ts";
import type { SandboxTemplateRecord, WorkloadRecord } from "../records.ts";
import { newUid } from "../util.ts";

/**
 * Sandbox templates (spec 4.3): FRESH platform templates (every org, read-only) and the org's
 * own USER templates, made by publishing a sandbox (PENDING until its files are copied, then
 * READY or FAILED). Another org's USER template is 404. The files of USER templates are the
 * sandbox service's (snapshots.ts); this class holds the records and their rules.
 */
export class SandboxTemplateService {
  private readonly lc: Lifecycle;

  constructor(lc: Lifecycle) {
    this.lc = lc;
  }

  private get store() {
    return this.lc.store;
  }

  /** A template the org can see (a FRESH one or its own), or 404 SANDBOX_TEMPLATE_NOT_FOUND. */
  get(org: string, uid: string): SandboxTemplateRecord {
    const t = this.store.sandboxTemplates.getIn(org, uid, true);
    if (!t) throw new ApiError("SANDBOX_TEMPLATE_NOT_FOUND", `sandbox template ${uid} not found`);
    return t;
  }

  /** The template a SANDBOX workload was made from, if it still exists. */
  sourceOf(w: WorkloadRecord): SandboxTemplateRecord | undefined {
    const uid = w.sandbox_config?.template_uid;
    return uid ? this.store.sandboxTemplates.get(uid) : undefined;
  }

  list(org: string, q: SandboxTemplateQuery): PageResult<SandboxTemplateRecord> {
    return paginate(
      this.store.sandboxTemplates.list(org, true),
      q,
      (t) => (!q.kind || t.kind === q.kind) && (!q.status || t.status === q.status),
      undefined,
      (uid) => this.store.sandboxTemplates.seqOf(uid),
    );
  }

  /** Changes the display name or description of a USER template. */
  update(t: SandboxTemplateRecord, patch: SandboxTemplatePatch): SandboxTemplateRecord {
    userOnly(t, "modified");
    if (patch.display_name !== undefined) t.display_name = patch.display_name;
    if (patch.description !== undefined) t.description = patch.description;
    t.updated_at = this.lc.now();
    this.store.sandboxTemplates.put(t);
    return t;
  }

  /** Deletes a USER template that is not still publishing (409 SANDBOX_TEMPLATE_PENDING). */
  delete(org: string, uid: string): void {
    const t = this.get(org, uid);
    userOnly(t, "deleted");
    if (t.status === "PENDING")
      throw new ApiError(
        "SANDBOX_TEMPLATE_PENDING",
        `sandbox template ${t.uid} is still publishing (PENDING) and cannot be deleted yet`,
      );
    this.store.sandboxTemplates.remove(t.uid);
  }

  /**
   * The PENDING USER template a publish of sandbox w creates: it runs on the resources and costs
   * of the template w was made from (w's own when that one is gone).
   */
  createPending(w: WorkloadRecord, body: PublishBody): SandboxTemplateRecord {
    const src = this.sourceOf(w);
    const now = this.lc.now();
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
    this.store.sandboxTemplates.put(tpl);
    return tpl;
  }

  /** Ends a publish: the template (unless deleted meanwhile) becomes READY or FAILED. */
  settle(uid: string, status: "READY" | "FAILED"): void {
    const cur = this.store.sandboxTemplates.get(uid);
    if (!cur) return;
    cur.status = status;
    cur.updated_at = this.lc.now();
    this.store.sandboxTemplates.put(cur);
  }
}

function userOnly(t: SandboxTemplateRecord, action: string): void {
  if (t.kind !== "USER")
    throw new ApiError(
      "SANDBOX_TEMPLATE_READ_ONLY",
      `sandbox template ${t.uid} is a FRESH platform template and cannot be ${action}`,
    );
}
