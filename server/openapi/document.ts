import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import * as api from "../../api/index.ts";
import { REASONS, type Reason } from "../../api/index.ts";
import {
  ENDPOINTS,
  PATH_PARAMETERS,
  SERVER_SCHEMAS,
  routeTemplate,
  type Endpoint,
} from "../../api/endpoints/index.ts";
import { linksOf } from "./links.ts";

/**
 * The OpenAPI 3.1 document of the service, generated from the contract: every zod schema
 * exported by api/ becomes a component (z.toJSONSchema, JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1), and the endpoint table (api/endpoints/) says which of them each route takes
 * and answers.
 */
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Record<string, unknown>>; [k: string]: unknown };
};
export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
  "x-reasons": string[];
  [k: string]: unknown;
}

const REF = "#/components/schemas/";
const PACKAGE_JSON = fileURLToPath(new URL("../../package.json", import.meta.url));
const SAFE_INT = Number.MAX_SAFE_INTEGER;

/**
 * Bodies the document states in another form than the one the server parses them with: the
 * server checks the plain object and then its rules one by one (each with its own reason); the
 * document gives one object per workload type, with every rule a schema can state
 * (api/workload-bodies.ts).
 */
const DOCUMENTED_AS: Record<string, z.ZodType> = {
  WorkloadCreate: api.WorkloadCreateByType,
  TemplateCreate: api.TemplateCreateByType,
  WorkloadPatch: api.WorkloadPatchDocumented,
  ForkBody: api.ForkBodyDocumented,
  TemplatePatch: api.TemplatePatchDocumented,
};

/** Every zod schema exported by api/ and the admin answers, by name. */
function registry() {
  const reg = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  const add = (name: string, schema: unknown) => {
    if (!(schema instanceof z.ZodType) || names.has(schema)) return;
    reg.add(schema, { id: name });
    names.set(schema, name);
  };
  // Query schemas become parameters, not components.
  for (const [name, schema] of Object.entries(api)) {
    if (name.endsWith("Query")) continue;
    const documented = DOCUMENTED_AS[name];
    if (documented) {
      add(name, documented);
      names.set(schema as z.ZodType, name);
    } else add(name, schema);
  }
  for (const [name, schema] of Object.entries(SERVER_SCHEMAS)) add(name, schema);
  return { reg, names };
}

/** Removes what JSON Schema output carries that an OpenAPI schema does not need. */
function tidy(ctx: { jsonSchema: Record<string, unknown> }): void {
  const s = ctx.jsonSchema;
  // An integer's safe range stays: the server refuses integers beyond it.
  if (s.type !== "integer" && s.minimum === -SAFE_INT) delete s.minimum;
  if (s.type !== "integer" && s.maximum === SAFE_INT) delete s.maximum;
  if (s.format === "starts_with") delete s.format;
}

function toJson(schema: z.ZodType | z.core.$ZodRegistry<{ id: string }>, io: "input" | "output") {
  return z.toJSONSchema(
    schema as z.ZodType,
    {
      target: "draft-2020-12",
      io,
      unrepresentable: "any",
      uri: (id: string) => `${REF}${id}`,
      override: tidy as never,
    } as z.core.ToJSONSchemaParams,
  ) as Record<string, unknown>;
}

function strip(s: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, $id: _i, ...rest } = s;
  return rest;
}

/** `:name` segments as OpenAPI `{name}` templates, with the prefix. */
export function openApiPath(op: Pick<Endpoint, "prefix" | "pattern">): string {
  return op.prefix + routeTemplate(op.pattern);
}

/** What a list's `cursor` is: what the server handed out, nothing a client makes. */
const CURSOR_DOC =
  "Opaque: the `next_cursor` of the previous page of this list, as this server issued it (or, as the spec puts it, the UID of the last item of the previous page that the list shows). Any other value is 404 CURSOR_NOT_FOUND.";

/** Reasons every route of this kind can answer with, on top of its own. */
function commonReasons(op: Endpoint): Reason[] {
  const out: Reason[] = ["INTERNAL_ERROR"];
  if (op.auth !== "none") out.push("UNAUTHORIZED");
  if (op.auth === "org") out.push("FORBIDDEN");
  if (op.prefix === "/v3") out.push("INVALID_DEPLOYMENT_TYPE");
  // Every authenticated API request counts against its org's rate limit (server/http/rate-limit.ts).
  if (op.prefix === "/v3" && op.auth !== "none") out.push("RATE_LIMITED");
  if (op.body) out.push("INVALID_BODY", "UNSUPPORTED_MEDIA_TYPE", "BODY_TOO_LARGE");
  if (op.query || op.queryParams) out.push("INVALID_QUERY");
  if (op.query && "cursor" in op.query.shape) out.push("CURSOR_NOT_FOUND");
  return out;
}

/** A header whose value is a whole number of at least `minimum`. */
const intHeader = (description: string, minimum: number) => ({
  description,
  schema: { type: "integer", minimum },
});

/** The headers of a 429 RATE_LIMITED answer (allowed answers of a limited org carry the RateLimit-* ones too). */
const RATE_LIMIT_HEADERS = {
  "Retry-After": intHeader("whole seconds until the org's next request can pass (at least 1)", 1),
  "RateLimit-Limit": intHeader("the org's burst: requests its bucket holds", 1),
  "RateLimit-Remaining": intHeader("whole requests left in the bucket", 0),
  "RateLimit-Reset": intHeader("whole seconds until the bucket is full again", 0),
};

function errorResponses(reasons: readonly Reason[]) {
  const byStatus = new Map<number, Reason[]>();
  for (const r of new Set(reasons)) {
    const status = REASONS[r];
    byStatus.set(status, [...(byStatus.get(status) ?? []), r]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `Error. Reasons: ${codes.join(", ")}`,
      content: {
        "application/json": {
          schema: { $ref: `${REF}ErrorBody` },
          example: { error: "(a message naming the field and the rule)", reason: codes[0] },
        },
      },
      "x-reasons": codes,
      ...(codes.includes("RATE_LIMITED") ? { headers: RATE_LIMIT_HEADERS } : {}),
    };
  }
  return out;
}

function operationId(op: Endpoint): string {
  const words = `${op.method.toLowerCase()} ${op.prefix === "/admin" ? "admin " : ""}${op.pattern}`
    .replace(/:(\w+)/g, "by $1")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
}

function build(): OpenApiDocument {
  const { reg, names } = registry();
  // Input form: request bodies as the server accepts them, answers open to added fields.
  const components = (toJson(reg, "input") as { schemas: Record<string, Record<string, unknown>> }).schemas;
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const [name, s] of Object.entries(components)) schemas[name] = strip(s);
  schemas.ErrorBody = {
    ...schemas.ErrorBody,
    description: "The body of every error answer (spec section 7).",
    properties: {
      error: { type: "string", description: "a human-readable message naming the field and the rule" },
      reason: { type: "string", description: "a reason code (see the Reason schema)" },
    },
  };
  schemas.Reason = {
    type: "string",
    description:
      "Machine-readable reason code. `x-status` gives the HTTP status each is answered with; injected faults (admin) may carry other codes.",
    enum: Object.keys(REASONS),
    "x-status": REASONS,
  };
  const ref = (schema: z.ZodType, io: "input" | "output") => {
    const name = names.get(schema);
    return name ? { $ref: `${REF}${name}` } : strip(toJson(schema, io));
  };

  const paths: OpenApiDocument["paths"] = {};
  for (const op of ENDPOINTS) {
    const path = openApiPath(op);
    const parameters: unknown[] = [...op.pattern.matchAll(/:(\w+)/g)].map(([, name]) => {
      const rule = PATH_PARAMETERS[name!];
      return {
        name,
        in: "path",
        required: true,
        description: rule?.description ?? name,
        schema: rule ? strip(toJson(rule.schema, "input")) : { type: "string", minLength: 1 },
      };
    });
    if (op.query) {
      // Query values are strings on the wire; their schema is the parsed (output) form.
      const q = strip(toJson(op.query, "output")) as {
        properties?: Record<string, unknown>;
        required?: string[];
      };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({
          name,
          in: "query",
          required: q.required?.includes(name) ?? false,
          ...(name === "cursor" ? { description: CURSOR_DOC } : {}),
          schema,
        });
      }
    }
    for (const p of op.queryParams ?? []) {
      parameters.push({
        name: p.name,
        in: "query",
        required: p.required ?? false,
        description: p.description,
        ...(p.repeated
          ? { schema: { type: "array", items: { type: "string" } }, style: "form", explode: true }
          : { schema: { type: "string" } }),
      });
    }
    if (op.prefix === "/v3" && op.auth !== "none")
      parameters.push({ $ref: "#/components/parameters/DeploymentType" });

    const responses: Record<string, unknown> = {};
    const links = linksOf(op, ENDPOINTS, operationId);
    for (const [status, r] of Object.entries(op.responses)) {
      const content: Record<string, unknown> = {};
      if (r.schema) content["application/json"] = { schema: ref(r.schema, "output") };
      if (r.text) content["text/plain"] = { schema: { type: "string" } };
      responses[status] = {
        description: r.description,
        ...(Object.keys(content).length ? { content } : {}),
        ...(links && r.schema ? { links } : {}),
      };
    }
    const reasons = [...new Set([...op.reasons, ...commonReasons(op)])];
    Object.assign(responses, errorResponses(reasons));

    const security =
      op.auth === "none" ? [] : op.auth === "admin" ? [{ adminToken: [] }] : [{ apiToken: [] }];
    const operation: OpenApiOperation = {
      operationId: operationId(op),
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      security,
      parameters,
      ...(op.body
        ? {
            requestBody: {
              required: !op.bodyOptional,
              content: { "application/json": { schema: ref(op.body, "input") } },
            },
          }
        : {}),
      responses: responses as OpenApiOperation["responses"],
      "x-reasons": reasons,
      ...(op.websocket ? { "x-websocket": true } : {}),
    };
    (paths[path] ??= {})[op.method.toLowerCase()] = operation;
  }

  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string };
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Compute Workload Service",
      version: pkg.version,
      description:
        "The Compute Workload Service API (under /v3) as implemented by the pulumi-cws reference server, and the server's admin surface (under /admin). Generated from the zod contract in api/.",
    },
    tags: [
      { name: "meta", description: "Health, readiness, version, regions" },
      { name: "workloads", description: "RENTAL, VM, BM and SANDBOX workloads (spec 4.1)" },
      { name: "sandboxes", description: "Sandbox-only operations (spec 4.2)" },
      { name: "sandbox-templates", description: "Sandbox templates (spec 4.3)" },
      { name: "templates", description: "Reusable workload templates (spec 4.4)" },
      { name: "volumes", description: "Volumes (spec 4.5)" },
      { name: "ssh-keys", description: "SSH keys (spec 4.6)" },
      {
        name: "admin",
        description: "Reference server only: reset, inspection, faults, provisioning, credits",
      },
    ],
    paths,
    components: {
      schemas,
      parameters: {
        DeploymentType: {
          name: "X-Deployment-Type",
          in: "header",
          required: false,
          description: "Target deployment of sandbox operations (default master).",
          schema: { $ref: `${REF}DeploymentType` },
        },
      },
      securitySchemes: {
        apiToken: { type: "http", scheme: "bearer", description: "API token of the organization" },
        adminToken: { type: "http", scheme: "bearer", description: "admin token of the reference server" },
      },
    },
  };
}

let built: OpenApiDocument | undefined;

/** The document, with `serverUrl` (the origin the API is reached at) as its server. */
export function openApiDocument(serverUrl = "http://127.0.0.1:8080"): OpenApiDocument {
  built ??= build();
  return {
    ...built,
    servers: [{ url: serverUrl, description: "this server (paths carry the /v3 or /admin prefix)" }],
  };
}
