import * as api from "../index.ts";
import { created, noContent, ok, endpointGroup } from "./common.ts";

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

/** Volumes (spec 4.5). */
export const VOLUMES = endpointGroup("volumes", {
  create: {
    method: "POST",
    pattern: "/orgs/:org/volumes",
    summary: "Create a volume",
    body: api.VolumeCreate,
    bodyReason: "VOLUME_INVALID",
    responses: created(api.VolumeCreated),
    reasons: ["VOLUME_INVALID"],
  },
  list: {
    method: "GET",
    pattern: "/orgs/:org/volumes",
    summary: "List volumes",
    query: api.VolumeListQuery,
    responses: ok(api.VolumeList),
    reasons: [],
  },
  get: {
    method: "GET",
    pattern: "/orgs/:org/volumes/:uid",
    summary: "Get a volume",
    responses: ok(api.Volume),
    reasons: ["VOLUME_NOT_FOUND"],
  },
  state: {
    method: "GET",
    pattern: "/orgs/:org/volumes/:uid/state",
    summary: "Get a volume's state record",
    responses: ok(api.VolumeState),
    reasons: ["VOLUME_NOT_FOUND"],
  },
  events: {
    method: "GET",
    pattern: "/orgs/:org/volumes/:uid/events",
    summary: "List a volume's events",
    query: api.PageQuery,
    responses: ok(api.VolumeEventList),
    reasons: ["VOLUME_NOT_FOUND"],
  },
  update: {
    method: "PATCH",
    pattern: "/orgs/:org/volumes/:uid",
    summary: "Rename a volume",
    body: api.VolumePatch,
    bodyReason: "VOLUME_INVALID",
    responses: ok(api.Volume),
    reasons: ["VOLUME_NOT_FOUND", "VOLUME_INVALID"],
  },
  delete: {
    method: "DELETE",
    pattern: "/orgs/:org/volumes/:uid",
    summary: "Delete a volume",
    responses: noContent,
    reasons: ["VOLUME_NOT_FOUND", "VOLUME_IN_USE"],
  },
});

/** SSH keys (spec 4.6). */
export const SSH_KEYS = endpointGroup("ssh-keys", {
  create: {
    method: "POST",
    pattern: "/orgs/:org/ssh-keys",
    summary: "Add an SSH public key",
    body: api.SshKeyCreate,
    bodyReason: "SSH_KEY_INVALID",
    responses: created(api.SshKey),
    reasons: ["SSH_KEY_INVALID"],
  },
  list: {
    method: "GET",
    pattern: "/orgs/:org/ssh-keys",
    summary: "List SSH keys",
    query: api.PageQuery,
    responses: ok(api.SshKeyList),
    reasons: [],
  },
  get: {
    method: "GET",
    pattern: "/orgs/:org/ssh-keys/:uid",
    summary: "Get an SSH key",
    responses: ok(api.SshKey),
    reasons: ["SSH_KEY_NOT_FOUND"],
  },
  update: {
    method: "PATCH",
    pattern: "/orgs/:org/ssh-keys/:uid",
    summary: "Rename an SSH key",
    body: api.SshKeyPatch,
    bodyReason: "SSH_KEY_INVALID",
    responses: ok(api.SshKey),
    reasons: ["SSH_KEY_NOT_FOUND", "SSH_KEY_INVALID"],
  },
  delete: {
    method: "DELETE",
    pattern: "/orgs/:org/ssh-keys/:uid",
    summary: "Delete an SSH key",
    responses: noContent,
    reasons: ["SSH_KEY_NOT_FOUND", "SSH_KEY_IN_USE"],
  },
});
