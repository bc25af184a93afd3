import * as api from "../index.ts";
import { SERVER_SCHEMAS } from "./answers.ts";
import { ok, type Endpoint } from "./common.ts";

/** Health, readiness, version, regions and the OpenAPI document. */
export const META = {
  health: {
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
  ready: {
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
  version: {
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
  regions: {
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
  openapi: {
    method: "GET",
    prefix: "/v3",
    pattern: "/openapi.json",
    tag: "meta",
    summary: "This OpenAPI document",
    auth: "none",
    responses: ok(SERVER_SCHEMAS.OpenApiDocument, "The OpenAPI 3.1 document of the service"),
    reasons: [],
  },
} satisfies Record<string, Endpoint>;
