import * as api from "../../../api/index.ts";
import { SERVER_SCHEMAS } from "./admin.ts";
import { ok, type Operation } from "./common.ts";

/** Health, readiness, version, regions and this document. */
export const META_OPERATIONS: readonly Operation[] = [
  {
    method: "GET",
    prefix: "/v3",
    pattern: "/healthz",
    tag: "meta",
    summary: "Liveness",
    description: "Also served at the root (`/healthz`).",
    auth: "none",
    responses: ok(api.Health),
    reasons: [],
  },
  {
    method: "GET",
    prefix: "/v3",
    pattern: "/readyz",
    tag: "meta",
    summary: "Readiness (503 while the server closes)",
    description: "Also served at the root (`/readyz`).",
    auth: "none",
    responses: { ...ok(api.Health), 503: { description: "Closing", schema: api.Health } },
    reasons: [],
  },
  {
    method: "GET",
    prefix: "/v3",
    pattern: "/version",
    tag: "meta",
    summary: "Release name, version, git hash and build date",
    description: "Also served at the root (`/version`).",
    auth: "none",
    responses: ok(api.Version),
    reasons: [],
  },
  {
    method: "GET",
    prefix: "/v3",
    pattern: "/region",
    tag: "meta",
    summary: "List regions",
    description: "Needs a valid token of any organization.",
    auth: "token",
    responses: ok(api.RegionList),
    reasons: [],
  },
  {
    method: "GET",
    prefix: "/v3",
    pattern: "/openapi.json",
    tag: "meta",
    summary: "This OpenAPI document",
    auth: "none",
    responses: ok(SERVER_SCHEMAS.OpenApiDocument, "The OpenAPI 3.1 document of the service"),
    reasons: [],
  },
];
