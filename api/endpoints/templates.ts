/** The endpoints of workload templates (saved workload create bodies). */
import * as api from "../index.ts";
import { created, noContent, ok, endpointGroup } from "./common.ts";

/** Reusable workload templates (spec 4.4). */
export const TEMPLATES = endpointGroup("templates", {
  create: {
    method: "POST",
    pattern: "/orgs/:org/templates",
    summary: "Create a workload template",
    description: "`manifest` is validated as a workload create body whose `type` equals `type`.",
    body: api.TemplateCreate,
    bodyReason: "TEMPLATE_INVALID",
    responses: created(api.TemplateCreated),
    creates: { pattern: "/orgs/:org/templates/:uid" },
    reasons: ["TEMPLATE_INVALID", "TEMPLATE_MANIFEST_INVALID"],
  },
  list: {
    method: "GET",
    pattern: "/orgs/:org/templates",
    summary: "List workload templates (the org's and PUBLIC ones)",
    query: api.TemplateListQuery,
    responses: ok(api.WorkloadTemplateList),
    reasons: [],
  },
  get: {
    method: "GET",
    pattern: "/orgs/:org/templates/:uid",
    summary: "Get a workload template",
    responses: ok(api.WorkloadTemplate),
    reasons: ["TEMPLATE_NOT_FOUND"],
  },
  update: {
    method: "PATCH",
    pattern: "/orgs/:org/templates/:uid",
    summary: "Update a workload template",
    body: api.TemplatePatch,
    bodyReason: "TEMPLATE_INVALID",
    responses: ok(api.WorkloadTemplate),
    reasons: ["TEMPLATE_NOT_FOUND", "TEMPLATE_READ_ONLY", "TEMPLATE_INVALID", "TEMPLATE_MANIFEST_INVALID"],
  },
  delete: {
    method: "DELETE",
    pattern: "/orgs/:org/templates/:uid",
    summary: "Delete a workload template",
    responses: noContent,
    reasons: ["TEMPLATE_NOT_FOUND", "TEMPLATE_READ_ONLY"],
  },
});
