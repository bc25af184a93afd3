/** The endpoints of SSH keys. */
import * as api from "../index.ts";
import { created, noContent, ok, endpointGroup } from "./common.ts";

/** SSH keys (spec 4.6). */
export const SSH_KEYS = endpointGroup("ssh-keys", {
  create: {
    method: "POST",
    pattern: "/orgs/:org/ssh-keys",
    summary: "Add an SSH public key",
    body: api.SshKeyCreate,
    bodyReason: "SSH_KEY_INVALID",
    responses: created(api.SshKey),
    creates: { pattern: "/orgs/:org/ssh-keys/:uid" },
    leadsTo: [
      {
        operation: "POST /orgs/:org/workloads",
        body: { ssh_keys: ["$response.body#/uid"] },
        description: "Register a workload that takes this key",
      },
    ],
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
