/** The endpoints of sandbox templates (FRESH ones of the platform, USER ones published from a sandbox). */
import * as api from "../index.ts";
import { noContent, ok, endpointGroup } from "./common.ts";

/** Sandbox templates (spec 4.3). */
export const SANDBOX_TEMPLATES = endpointGroup("sandbox-templates", {
  list: {
    method: "GET",
    pattern: "/orgs/:org/sandbox-templates",
    summary: "List sandbox templates (FRESH and the org's USER templates)",
    query: api.SandboxTemplateQuery,
    responses: ok(api.SandboxTemplateList),
    reasons: [],
  },
  get: {
    method: "GET",
    pattern: "/orgs/:org/sandbox-templates/:uid",
    summary: "Get a sandbox template",
    responses: ok(api.SandboxTemplate),
    reasons: ["SANDBOX_TEMPLATE_NOT_FOUND"],
  },
  update: {
    method: "PATCH",
    pattern: "/orgs/:org/sandbox-templates/:uid",
    summary: "Update a USER sandbox template",
    body: api.SandboxTemplatePatch,
    bodyReason: "SANDBOX_TEMPLATE_INVALID",
    responses: ok(api.SandboxTemplate),
    reasons: ["SANDBOX_TEMPLATE_NOT_FOUND", "SANDBOX_TEMPLATE_READ_ONLY", "SANDBOX_TEMPLATE_INVALID"],
  },
  delete: {
    method: "DELETE",
    pattern: "/orgs/:org/sandbox-templates/:uid",
    summary: "Delete a USER sandbox template",
    responses: noContent,
    reasons: ["SANDBOX_TEMPLATE_NOT_FOUND", "SANDBOX_TEMPLATE_READ_ONLY", "SANDBOX_TEMPLATE_PENDING"],
  },
});
