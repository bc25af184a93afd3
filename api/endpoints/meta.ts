import * as api from "../index.ts";
import { SERVER_SCHEMAS } from "./answers.ts";
import { ok, endpointGroup } from "./common.ts";

/** Health, readiness, version, regions and the OpenAPI document. */
export const META = endpointGroup(
  "meta",
  {
    health: {
      method: "GET",
      pattern: "/healthz",
      summary: "Liveness",
      description: "Also served at the root (`/healthz`).",
      responses: ok(api.Health),
      reasons: [],
    },
    ready: {
      method: "GET",
      pattern: "/readyz",
      summary: "Readiness (503 while the server closes)",
      description: "Also served at the root (`/readyz`).",
      responses: { ...ok(api.Health), 503: { description: "Closing", schema: api.Health } },
      reasons: [],
    },
    version: {
      method: "GET",
      pattern: "/version",
      summary: "Release name, version, git hash and build date",
      description: "Also served at the root (`/version`).",
      responses: ok(api.Version),
      reasons: [],
    },
    regions: {
      method: "GET",
      pattern: "/region",
      summary: "List regions",
      description: "Needs a valid token of any organization.",
      auth: "token",
      responses: ok(api.RegionList),
      reasons: [],
    },
    openapi: {
      method: "GET",
      pattern: "/openapi.json",
      summary: "This OpenAPI document",
      responses: ok(SERVER_SCHEMAS.OpenApiDocument, "The OpenAPI 3.1 document of the service"),
      reasons: [],
    },
  },
  { prefix: "/v3", auth: "none" },
);
