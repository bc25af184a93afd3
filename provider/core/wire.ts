/**
 * The one place where Pulumi's camelCase properties meet the service's snake_case wire format.
 *
 * A property stands for the wire field of the same name in snake_case, at every depth
 * (`registryAuth.username` is `registry_auth.username`; the rule itself is api/property-names.ts).
 * Keys under `experiments` are opaque switch names ("reserved-gpu") and pass through unchanged.
 * The few properties named otherwise say so in their resource's definition (`wire`), each with its reason. Resource modules build
 * request bodies with toWire, read the service's objects with propsFrom and fromWire, and report
 * the contract's violations with failureOf or schemaFailures, so that no module renames a key by hand.
 */
import { camelToSnake, snakeToCamel, zodViolations } from "../../api/index.ts";
import type { CheckFailure, Props } from "./types.ts";
import { containsUnknown, valueAt } from "./unknowns.ts";

export { camelToSnake, snakeToCamel };

/** Properties whose keys are opaque switch names ("reserved-gpu"): a map, passed through unchanged. */
export const OPAQUE: ReadonlySet<string> = new Set(["experiments"]);

/**
 * Where the service keeps a property whose wire field is not the snake_case of its name: the
 * dotted path in a request body and the one in the object the service returns (a string: both).
 */
export type WireName = string | { body?: string; record?: string };
export type Renames = Readonly<Record<string, WireName>>;

/**
 * Outputs from a workload's or volume's state summary (`state`): its fields are top-level
 * outputs, and its `message` is `statusMessage`, which says whose message it is.
 */
export function fromStateSummary(property: string): WireName {
  return { record: `state.${property === "statusMessage" ? "message" : camelToSnake(property)}` };
}

function path(property: string, renames: Renames, side: "body" | "record"): string {
  const name = renames[property];
  return (typeof name === "string" ? name : name?.[side]) ?? camelToSnake(property);
}

/** The wire field a property is sent as ("sandbox_config.ttl_sec" for a sandbox's ttlSec). */
export function wireName(property: string, renames: Renames = {}): string {
  return path(property, renames, "body");
}

/** The top-level service field a property is sent in ("sandbox_config" for a sandbox's ttlSec). */
export function serviceField(property: string, renames: Renames = {}): string {
  return wireName(property, renames).split(".")[0]!;
}

export type Json = unknown;

function convert(value: Json, key: (k: string) => string): Json {
  if (Array.isArray(value)) return value.map((v) => convert(v, key));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const mapped = key(k);
    out[mapped] = OPAQUE.has(mapped) || OPAQUE.has(k) ? v : convert(v, key);
  }
  return out;
}

function setPath(target: Record<string, Json>, dotted: string, value: Json): void {
  const parts = dotted.split(".");
  let cur = target;
  for (const part of parts.slice(0, -1)) cur = (cur[part] ??= {}) as Record<string, Json>;
  cur[parts[parts.length - 1]!] = value;
}

/**
 * camelCase inputs to a wire body. Each top-level property goes to its wire field (`renames`
 * gives the ones named otherwise); unset properties are left out.
 */
export function toWire<T = Record<string, unknown>>(value: Json, renames: Renames = {}): T {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return convert(value, camelToSnake) as T;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) setPath(out, wireName(k, renames), OPAQUE.has(k) ? v : convert(v, camelToSnake));
  }
  return out as T;
}

/** A wire object to camelCase outputs. */
export function fromWire<T = Record<string, unknown>>(value: Json): T {
  return convert(value, snakeToCamel) as T;
}

/**
 * The named properties of an object the service returned, each read from its wire field
 * (`renames` gives the ones kept elsewhere) and converted to camelCase; unset ones are left out.
 */
export function propsFrom(record: object, properties: readonly string[], renames: Renames = {}): Props {
  const out: Props = {};
  for (const p of properties) {
    const v = valueAt(record, path(p, renames, "record"));
    if (v !== undefined) out[p] = OPAQUE.has(p) ? v : fromWire(v);
  }
  return out;
}

/** The body paths of `renames` that differ from the snake_case of their property, longest first. */
function renamedInBody(renames: Renames): [property: string, body: string][] {
  return Object.keys(renames)
    .map((p): [string, string] => [p, wireName(p, renames)])
    .filter(([p, body]) => body !== camelToSnake(p))
    .sort(([, a], [, b]) => b.length - a.length);
}

const camelPath = (field: string) => field.split(".").map(snakeToCamel).join(".");

/**
 * "vm_config.password" or "ports[1].routing" as the Pulumi property path ("vmConfig.password");
 * with a resource's `renames`, "sandbox_config.ttl_sec" is a sandbox's "ttlSec".
 */
export function wireFieldToProperty(field: string, renames: Renames = {}): string {
  for (const [property, body] of renamedInBody(renames)) {
    const rest = field.slice(body.length);
    if (field.startsWith(body) && (rest === "" || rest.startsWith(".") || rest.startsWith("[")))
      return property + camelPath(rest);
  }
  return camelPath(field);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Rewrites wire field names inside a message to the program's property names. */
export function toInputWords(message: string, renames: Renames = {}): string {
  let out = message;
  for (const [property, body] of renamedInBody(renames))
    out = out.replace(new RegExp(`(?<![\\w.])${escape(body)}(?!\\w)`, "g"), property);
  return out.replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (w) => snakeToCamel(w));
}

/** A broken rule of the contract, which names a wire field, as a failure naming the property. */
export function failureOf(v: { field: string; message: string }, renames: Renames = {}): CheckFailure {
  return { property: wireFieldToProperty(v.field, renames), reason: toInputWords(v.message, renames) };
}

/** Structural check of a wire body against a contract schema, reported as property failures. */
export function schemaFailures(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  body: unknown,
  renames: Renames = {},
): CheckFailure[] {
  const r = schema.safeParse(body);
  if (r.success) return [];
  return zodViolations(r.error as never, "INVALID_BODY").map((v) => failureOf(v, renames));
}

/**
 * The contract's failures for a create body made of `inputs` (camelCase, `renames` applied);
 * none while a value is still unknown at preview.
 */
export function contractFailures(
  schema: Parameters<typeof schemaFailures>[0],
  inputs: Props,
  renames: Renames = {},
): CheckFailure[] {
  const body = toWire(inputs, renames);
  return containsUnknown(body) ? [] : schemaFailures(schema, body, renames);
}
