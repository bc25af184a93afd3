/** The endpoints of volumes. */
import * as api from "../index.ts";
import { created, noContent, ok, endpointGroup } from "./common.ts";

/** Volumes (spec 4.5). */
export const VOLUMES = endpointGroup("volumes", {
  create: {
    method: "POST",
    pattern: "/orgs/:org/volumes",
    summary: "Create a volume",
    body: api.VolumeCreate,
    bodyReason: "VOLUME_INVALID",
    responses: created(api.VolumeCreated),
    creates: { pattern: "/orgs/:org/volumes/:uid" },
    leadsTo: [
      {
        operation: "POST /orgs/:org/workloads",
        body: { type: "RENTAL", volumes: [{ uid: "$response.body#/uid", mount_path: "/data" }] },
        description: "Register a RENTAL workload that mounts this volume at /data",
      },
    ],
    reasons: ["VOLUME_INVALID", "VOLUME_RESOURCE_NOT_FOUND"],
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
