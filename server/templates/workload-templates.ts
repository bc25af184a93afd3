import {
  type TemplatePatch,
  validateWorkloadCreate,
  type TemplateCreate,
  type TemplateListQuery,
  type WorkloadType,
} from "../../api/index.ts";
import { ResourceService } from "../common/resource-service.ts";
import type { ServiceDeps } from "../common/service-deps.ts";
import type { PageResult } from "../common/pages.ts";
import { ApiError } from "../http/errors.ts";
import type { TemplateRecord } from "../store/records.ts";
import { newUid } from "../common/util.ts";

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
export class WorkloadTemplateService extends ResourceService<TemplateRecord, TemplatePatch> {
  constructor(deps: ServiceDeps) {
    const sees = (org: string, t: TemplateRecord) => t.org === org || t.visibility === "PUBLIC";
    super(deps, deps.store.templates, {
      name: "templates",
      noun: "template",
      notFound: "TEMPLATE_NOT_FOUND",
      sees,
      visible: (org) => deps.store.templates.list(org, true).filter((t) => sees(org, t)),
      writable: (org, t) => {
        if (t.org !== org)
          throw new ApiError(
            "TEMPLATE_READ_ONLY",
            `template ${t.uid} is a public template of another owner and cannot be changed`,
          );
      },
      apply: (t, patch) => {
        // A new manifest must still fit the template's type.
        if (patch.manifest !== undefined) checkManifest(t.type, patch.manifest);
        if (patch.name !== undefined) t.name = patch.name;
        if (patch.description !== undefined) t.description = patch.description;
        if (patch.manifest !== undefined) t.manifest = patch.manifest;
        return true;
      },
    });
  }

  create(org: string, body: TemplateCreate): TemplateRecord {
    checkManifest(body.type, body.manifest);
    const now = this.now();
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
    this.docs.put(t);
    return t;
  }

  /** A page of the templates the org can see (its own and PUBLIC ones), filtered by type and visibility. */
  override list(org: string, q: TemplateListQuery): PageResult<TemplateRecord> {
    return super.list(
      org,
      q,
      (t) => (!q.type || t.type === q.type) && (!q.visibility || t.visibility === q.visibility),
    );
  }
}
