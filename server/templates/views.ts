import type { SandboxTemplate, WorkloadTemplate } from "../../api/index.ts";
import type { SandboxTemplateRecord, TemplateRecord } from "../store/records.ts";

/** Wire views of workload and sandbox template records (internal fields and passwords never leave). */

/** A manifest as returned: passwords removed (they are stored, never echoed). */
export function redactManifest(m: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...m };
  for (const key of ["vm_config", "registry_auth"]) {
    const sub = out[key];
    if (sub && typeof sub === "object" && !Array.isArray(sub) && "password" in sub) {
      const { password: _p, ...rest } = sub as Record<string, unknown>;
      out[key] = rest;
    }
  }
  return out;
}

export function workloadTemplateView(t: TemplateRecord): WorkloadTemplate {
  return {
    uid: t.uid,
    name: t.name,
    description: t.description,
    type: t.type,
    manifest: redactManifest(t.manifest),
    visibility: t.visibility,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

export function sandboxTemplateView(t: SandboxTemplateRecord): SandboxTemplate {
  return {
    uid: t.uid,
    name: t.name,
    display_name: t.display_name,
    description: t.description,
    kind: t.kind,
    status: t.status,
    resource_name: t.resource_name,
    cost_per_hour: t.cost_per_hour,
    frozen_cost_per_hour: t.frozen_cost_per_hour,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}
