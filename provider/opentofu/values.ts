/**
 * Values between OpenTofu's objects (snake_case attributes, every one present, null when unset,
 * unknown until apply) and the provider core's properties (camelCase, unset ones absent, the
 * core's unknown marker). Both directions follow the schema (tf-schema.ts), so nested objects
 * get every attribute and numbers stay numbers. The objects travel as tfplugin6 DynamicValues.
 */
import type { CheckFailure, Props } from "../core/types.ts";
import { UNKNOWN } from "../core/unknowns.ts";
import { camelToSnake, snakeToCamel } from "../core/wire.ts";
import { UNKNOWN_VALUE, decodeMsgpack, encodeMsgpack, type MsgValue, type TfObject } from "./msgpack.ts";
import type { TfAttribute, TfResource, TfType } from "./tf-schema.ts";

/** A tfplugin6 DynamicValue: a value in MessagePack (or JSON, which OpenTofu sends for raw state). */
export interface DynamicValue {
  msgpack?: Buffer;
  json?: Buffer;
}

/** The object a DynamicValue holds (null: none). */
export function decodeValue(v: DynamicValue | undefined): TfObject | null {
  if (v?.msgpack?.length) return decodeMsgpack(v.msgpack) as TfObject | null;
  if (v?.json?.length) return JSON.parse(v.json.toString("utf8")) as TfObject | null;
  return null;
}

export const encodeValue = (v: MsgValue): DynamicValue => ({ msgpack: encodeMsgpack(v) });

/** A JSON document's keys renamed all the way down (a manifest is written with HCL's snake_case names). */
function renameKeys(v: unknown, rename: (k: string) => string): unknown {
  if (Array.isArray(v)) return v.map((x) => renameKeys(x, rename));
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [rename(k), renameKeys(x, rename)]));
  }
  return v;
}

export const isUnknown = (v: unknown): v is typeof UNKNOWN_VALUE => v === UNKNOWN_VALUE;

export function containsUnknownValue(v: MsgValue): boolean {
  if (isUnknown(v)) return true;
  if (Array.isArray(v)) return v.some(containsUnknownValue);
  if (v && typeof v === "object") return Object.values(v).some(containsUnknownValue);
  return false;
}

/** A value of a type, from OpenTofu to the core (snake_case object keys become camelCase). */
function coreValue(v: MsgValue, type: TfType, nested?: TfAttribute["nested"]): unknown {
  if (isUnknown(v)) return UNKNOWN;
  if (v === null) return undefined;
  if (nested) {
    const one = (o: MsgValue) => (isUnknown(o) ? UNKNOWN : toCore(nested.attributes, o as TfObject));
    return nested.nesting === "LIST" ? (v as MsgValue[]).map(one) : one(v);
  }
  if (type === "number") return typeof v === "string" ? Number(v) : v;
  if (typeof type === "string") return v;
  const [kind, inner] = type;
  if (kind === "list") return (v as MsgValue[]).map((x) => coreValue(x, inner));
  if (kind === "map") {
    return Object.fromEntries(Object.entries(v as TfObject).map(([k, x]) => [k, coreValue(x, inner)]));
  }
  const out: Props = {};
  for (const [k, t] of Object.entries(inner)) {
    const x = coreValue((v as TfObject)[k] ?? null, t);
    if (x !== undefined) out[snakeToCamel(k)] = x;
  }
  return out;
}

/** An OpenTofu object as core properties; unset attributes are left out. */
export function toCore(attributes: TfAttribute[], obj: TfObject | null): Props {
  const out: Props = {};
  if (!obj) return out;
  for (const a of attributes) {
    const v = obj[a.name] ?? null;
    if (a.json && typeof v === "string") {
      try {
        out[a.key] = renameKeys(JSON.parse(v), snakeToCamel);
      } catch {
        out[a.key] = v; // the core names the attribute whose value is not an object
      }
      continue;
    }
    const x = coreValue(v, a.type, a.nested);
    if (x !== undefined) out[a.key] = x;
  }
  return out;
}

/** A core value as a value of an OpenTofu type (every object attribute present). */
function tfValue(v: unknown, type: TfType, nested?: TfAttribute["nested"]): MsgValue {
  if (v === undefined || v === null) return null;
  if (v === UNKNOWN) return UNKNOWN_VALUE;
  if (nested) {
    const one = (o: unknown) => toTf(nested.attributes, o as Props);
    return nested.nesting === "LIST" ? (v as unknown[]).map(one) : one(v);
  }
  if (type === "number") return typeof v === "number" ? v : Number(v);
  if (type === "bool") return Boolean(v);
  if (type === "string") return typeof v === "string" ? v : JSON.stringify(v);
  const [kind, inner] = type;
  if (kind === "list") return Array.isArray(v) ? v.map((x) => tfValue(x, inner)) : null;
  if (kind === "map") {
    return Object.fromEntries(Object.entries(v as Props).map(([k, x]) => [k, tfValue(x, inner)]));
  }
  const src = v as Props;
  return Object.fromEntries(Object.entries(inner).map(([k, t]) => [k, tfValue(src[snakeToCamel(k)], t)]));
}

/** Core properties as an OpenTofu object of the given attributes. */
export function toTf(attributes: TfAttribute[], props: Props): TfObject {
  const out: TfObject = {};
  for (const a of attributes) {
    const v = props[a.key];
    out[a.name] =
      a.json && v !== undefined && v !== null && typeof v !== "string"
        ? JSON.stringify(renameKeys(v, camelToSnake))
        : tfValue(v, a.type, a.nested);
  }
  return out;
}

/** Deep equality of plain values (JSON documents compared by content, not key order). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]))
    );
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).filter((k) => (a as Props)[k] !== null && (a as Props)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Props)[k] !== null && (b as Props)[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameValue((a as Props)[k], (b as Props)[k]));
  }
  return false;
}

/** A JSON document held as a string, by content. */
export function sameJson(a: MsgValue, b: MsgValue): boolean {
  if (typeof a !== "string" || typeof b !== "string") return a === b;
  try {
    return sameValue(JSON.parse(a), JSON.parse(b));
  } catch {
    return a === b;
  }
}

/** Failures of the JSON documents in a configuration: each must be an object. */
export function jsonFailures(r: TfResource, config: TfObject | null): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const a of r.attributes.filter((x) => x.json)) {
    const v = config?.[a.name];
    if (typeof v !== "string") continue;
    let doc: unknown;
    try {
      doc = JSON.parse(v);
    } catch {
      doc = undefined;
    }
    if (!doc || typeof doc !== "object" || Array.isArray(doc))
      failures.push({ property: a.key, reason: `${a.name} must be a JSON object (use jsonencode({...}))` });
  }
  return failures;
}
