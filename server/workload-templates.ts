import {
  validateWorkloadCreate,
  type TemplateCreate,
  type TemplateListQuery,
  type TemplatePatch,
  type WorkloadType,
} from "../api/index.ts";
import { ApiError } from "./http/errors.ts";
import { paginate, type PageResult } from "./http/io.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { TemplateRecord } from "./records.ts";
import { newUid } from "./util.ts";

/** A manifest must be a valid workload create body whose type equals the template's type. */
export function checkManifest(type: WorkloadType, manifest: Record<string, unknown>): void {
  if (manifest.type !== type) {
    const got = manifest.type === undefined ? "missing" : JSON.stringify(manifest.type);
    throw new ApiError("TEMPLATE_MANIFEST_INVALID", `manifest.type must equal type (${type}); got ${got}`);
  }
  const result = validateWorkloadCreate(manifest);
  if (!result.ok) {
    const msgs = result.violations.map((v) => {
      const m = v.message.startsWith(v.field) ? v.message : `${v.field}: ${v.message}`;
      return `manifest.${m}`;
    });
    throw new ApiError("TEMPLATE_MANIFEST_INVALID", msgs.join("; "));
  }
}

/**
 * Workload templates (spec 4.4, wire type WorkloadTemplate, served at /templates): reusable
 * workload manifests. PUBLIC templates are visible to every org; only the owning org may change
 * or delete a template (another owner's: 403 TEMPLATE_READ_ONLY).
 */
export class WorkloadTemplateService {
  private readonly lc: Lifecycle;

  constructor(lc: Lifecycle) {
    this.lc = lc;
  }

  private get store() {
    return this.lc.store;
  }

  /** A template the org can see (its own or a PUBLIC one), or 404 TEMPLATE_NOT_FOUND. */
  get(org: string, uid: string): TemplateRecord {
    const t = this.store.templates.get(uid);
    if (!t || !(t.org === org || t.visibility === "PUBLIC"))
      throw new ApiError("TEMPLATE_NOT_FOUND", `template ${uid} not found`);
    return t;
  }

  /** A template the org owns and may change (403 TEMPLATE_READ_ONLY for another owner's). */
  owned(org: string, uid: string): TemplateRecord {
    const t = this.get(org, uid);
    if (t.org !== org)
      throw new ApiError(
        "TEMPLATE_READ_ONLY",
        `template ${uid} is a public template of another owner and cannot be changed`,
      );
    return t;
  }

  create(org: string, body: TemplateCreate): TemplateRecord {
    checkManifest(body.type, body.manifest);
    const now = this.lc.now();
    const t: TemplateRecord = {
      uid: newUid("wtpl"),
      org,
      name: body.name,
      description: body.description ?? "",
      type: body.type,
      manifest: body.manifest,
      visibility: body.visibility ?? "PRIVATE",
      created_at: now,
      updated_at: now,
    };
    this.store.templates.put(t);
    return t;
  }

  /** The templates the org can see: its own and the PUBLIC ones, in creation order. */
  visible(org: string): TemplateRecord[] {
    return this.store.templates.list(org, true).filter((t) => t.org === org || t.visibility === "PUBLIC");
  }

  /** A page of the templates the org can see, filtered by type and visibility. */
  list(org: string, q: TemplateListQuery): PageResult<TemplateRecord> {
    return paginate(
      this.visible(org),
      q,
      (t) => (!q.type || t.type === q.type) && (!q.visibility || t.visibility === q.visibility),
      undefined,
      (uid) => this.store.templates.seqOf(uid),
    );
  }

  /** Changes an owned template (see owned()); a new manifest must still fit its type. */
  update(t: TemplateRecord, patch: TemplatePatch): TemplateRecord {
    if (patch.manifest !== undefined) checkManifest(t.type, patch.manifest);
    if (patch.name !== undefined) t.name = patch.name;
    if (patch.description !== undefined) t.description = patch.description;
    if (patch.manifest !== undefined) t.manifest = patch.manifest;
    t.updated_at = this.lc.now();
    this.store.templates.put(t);
    return t;
  }

  delete(org: string, uid: string): void {
    this.store.templates.remove(this.owned(org, uid).uid);
  }
}
