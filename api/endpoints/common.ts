/** What an endpoint of the table declares, and the pieces its entries share (paths, answers, reasons). */
import { z } from "zod";
import {
  LIMITS,
  SNAPSHOT_NAME,
  SNAPSHOT_NAME_RULE,
  TERMINAL_ID,
  WorkloadOperation,
  type Page,
  type Reason,
} from "../index.ts";

/**
 * Who may call an endpoint. "org": a bearer token of the org named by the :org path parameter;
 * "token": a token of any org; "admin": the admin token; "none": anyone.
 */
export type EndpointAuth = "org" | "token" | "none" | "admin";

/**
 * One endpoint, declared once: its route, who may call it, the contract schemas of its query,
 * body and answers, its success statuses and its error reasons. The server registers its
 * handler from it (server/http/endpoints.ts), the OpenAPI document is built from it, and the
 * client takes each request's method, path, authentication and answer schema from it
 * (client/http.ts).
 */
export interface Endpoint {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** "/v3" (the API) or "/admin". */
  prefix: "/v3" | "/admin";
  /** Router pattern relative to the prefix, `:name` segments. */
  pattern: string;
  tag: string;
  summary: string;
  description?: string;
  auth: EndpointAuth;
  query?: z.ZodObject;
  /** Extra query parameters not in a schema (name, description, repeated). */
  queryParams?: { name: string; description: string; repeated?: boolean; required?: boolean }[];
  body?: z.ZodType;
  bodyOptional?: boolean;
  /** Reason of a body that breaks `body` (default INVALID_BODY). */
  bodyReason?: Reason;
  /** Success answers by status: a JSON schema, "text" (text/plain), or null (no body). */
  responses: Record<number, { description: string; schema?: z.ZodType | null; text?: boolean }>;
  /** Reason codes this operation answers with, beyond those every route of its kind can. */
  reasons: Reason[];
  /** A WebSocket handshake (served by an upgrade handler, not the router). */
  websocket?: boolean;
  /**
   * What a success answer creates: the member pattern of the created object, whose last
   * parameter the answer's `from` gives (a JSON pointer, default `/uid`). The OpenAPI document
   * links the operation to every operation on that member (server/openapi/links.ts).
   */
  creates?: {
    pattern: string;
    from?: string;
    /**
     * Path parameters of operations on the created object that its request's body names (a
     * JSON pointer into the body): a workload created with an SSH key links to detaching it.
     */
    named?: Record<string, string>;
  };
  /**
   * The object an action's answer describes, when the action opens operations on it (a deploy:
   * a running workload takes exec, files, terminals): linked like `creates`.
   */
  answers?: { pattern: string; from?: string };
  /**
   * Operations a success answer leads to beyond those on its object, each named by method and
   * pattern, with the body its link sends (`$response.body#/...` expressions inside): a created
   * SSH key goes into a workload's `ssh_keys`, a frozen sandbox is thawed.
   */
  leadsTo?: { operation: string; body?: unknown; description: string }[];
}

/**
 * The rules of path parameters a schema can state (the others are any non-empty segment).
 * The server checks them where the route reads the parameter.
 */
export const PATH_PARAMETERS: Record<string, { schema: z.ZodType; description: string }> = {
  org: { schema: z.string().min(1), description: "organization slug" },
  uid: { schema: z.string().min(1), description: "UID of the object" },
  volume: { schema: z.string().min(1), description: "volume UID" },
  key: { schema: z.string().min(1), description: "SSH key UID" },
  snapshot: {
    schema: z.string().regex(SNAPSHOT_NAME),
    description: `snapshot name: ${SNAPSHOT_NAME_RULE}`,
  },
  terminal: {
    schema: z.string().regex(TERMINAL_ID),
    description: `terminal session id: 1-${LIMITS.terminalIdMax} letters, digits, dots, underscores or hyphens`,
  },
};

/** An endpoint whose success answers are JSON read by schemas whose output is T. */
export interface JsonEndpoint<T> extends Endpoint {
  responses: Record<number, { description: string; schema?: z.ZodType<T> | null; text?: boolean }>;
}

/** The schema of an endpoint's first success answer that has one (what a client reads the answer with). */
export function answerSchema<T>(endpoint: JsonEndpoint<T>): z.ZodType<T> {
  const schema = Object.values(endpoint.responses).find((r) => r.schema)?.schema;
  if (!schema) throw new TypeError(`${endpoint.method} ${endpoint.pattern} answers no JSON`);
  return schema;
}

/**
 * The endpoints every resource of spec section 4 has, on the resource (`/orgs/:org/<name>`) and
 * on one member (`.../:uid`): list a page, get, update (PATCH) and delete.
 */
export interface ResourceEndpoints<Item = unknown, Listed = unknown> {
  list: JsonEndpoint<Page<Listed>> & { query: z.ZodObject };
  get: JsonEndpoint<Item>;
  update: JsonEndpoint<Item> & { body: z.ZodType };
  delete: Endpoint;
}

/** A pattern's `:name` parameters as `{name}` templates (`/orgs/{org}/volumes/{uid}`), as the OpenAPI document and the client's errors name a route. */
export const routeTemplate = (pattern: string): string => pattern.replace(/:(\w+)/g, "{$1}");

/** One workload: the pattern its own routes extend. */
export const W = "/orgs/:org/workloads/:uid";
export const ok = <S extends z.ZodType>(schema: S, description = "OK") => ({ 200: { description, schema } });
export const created = <S extends z.ZodType>(schema: S, description = "Created") => ({
  201: { description, schema },
});
export const noContent = { 204: { description: "No Content", schema: null } };
export const WL: Reason[] = ["WORKLOAD_NOT_FOUND"];
export const SANDBOX_TARGET: Reason[] = [
  "WORKLOAD_NOT_FOUND",
  "WORKLOAD_OPERATION_UNSUPPORTED",
  "WORKLOAD_SANDBOX_NOT_DEPLOYED",
  "WORKLOAD_SANDBOX_UNAVAILABLE",
  "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
  "WORKLOAD_SANDBOX_INVALID_STATE",
  "WORKLOAD_SANDBOX_GATEWAY_FAILURE",
];
export const CREATE_RULES: Reason[] = [
  "WORKLOAD_NAME_INVALID",
  "WORKLOAD_FIELD_REQUIRED",
  "WORKLOAD_FIELD_UNSUPPORTED",
  "WORKLOAD_FIELD_INVALID",
  "WORKLOAD_PORT_INVALID",
  "WORKLOAD_DIRECT_PORTS_LIMIT",
  "WORKLOAD_VM_PASSWORD_INVALID",
  "WORKLOAD_RESOURCE_NOT_FOUND",
  "WORKLOAD_RESOURCE_TYPE_MISMATCH",
  "WORKLOAD_IMAGE_NOT_FOUND",
  "WORKLOAD_REGION_NOT_ALLOWED",
  "WORKLOAD_SSH_KEY_NOT_FOUND",
  "WORKLOAD_VOLUME_NOT_FOUND",
  "WORKLOAD_VOLUME_IN_USE",
  "WORKLOAD_SANDBOX_PORT_RESERVED",
  "WORKLOAD_SANDBOX_TIMEOUTS_INVALID",
];
export const DEPLOY: Reason[] = [
  "WORKLOAD_INVALID_STATE",
  "WORKLOAD_NO_CAPACITY",
  "WORKLOAD_INSUFFICIENT_CREDITS",
  "WORKLOAD_SANDBOX_NO_CAPACITY",
  "WORKLOAD_SANDBOX_TEMPLATE_NOT_READY",
  "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND",
];

/** A POST on one workload (`.../:uid/<action>`, no body) answered with its operation record. */
export function workloadAction(action: string, summary: string, reasons: Reason[]) {
  const responses = ok(WorkloadOperation);
  return { method: "POST" as const, pattern: `${W}/${action}`, summary, responses, reasons };
}

type GroupField = "prefix" | "tag" | "auth";
type Entry = Omit<Endpoint, GroupField> & Partial<Pick<Endpoint, "auth">>;

/**
 * The endpoints of one tag, with the prefix and auth they share given once (by default those of
 * the org's API); an entry that names its own auth keeps it.
 */
export function endpointGroup<E extends Record<string, Entry>>(
  tag: string,
  entries: E,
  shared: Pick<Endpoint, "prefix" | "auth"> = { prefix: "/v3", auth: "org" },
): { [K in keyof E]: E[K] & Pick<Endpoint, GroupField> } {
  const out: Record<string, Endpoint> = {};
  for (const [key, entry] of Object.entries(entries)) out[key] = { ...shared, tag, ...entry };
  return out as { [K in keyof E]: E[K] & Pick<Endpoint, GroupField> };
}
