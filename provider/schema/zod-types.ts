/**
 * Pulumi schema types from the api/ contract's zod schemas. Wire field names become camelCase;
 * every object becomes a named type (`cws:index:<Name>`), named after the contract schema it
 * comes from, or after the property that holds it.
 */
import { z } from "zod";
import {
  BmConfig,
  Env,
  InventoryResource,
  Port,
  RegistryAuth,
  Url,
  VmConfig,
  VolumeMount,
} from "../../api/index.ts";
import { OPAQUE, snakeToCamel } from "../core/wire.ts";

export interface TypeSpec {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
}

export interface PropertySpec extends TypeSpec {
  description?: string;
  secret?: boolean;
  default?: unknown;
}

export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

const NAMES = new Map<z.ZodType, string>([
  [Port, "Port"],
  [Env, "Env"],
  [RegistryAuth, "RegistryAuth"],
  [VolumeMount, "VolumeMount"],
  [VmConfig, "VmConfig"],
  [BmConfig, "BmConfig"],
  [Url, "Url"],
  [InventoryResource, "Inventory"],
]);

export const fromWireKey = (k: string) => snakeToCamel(k);

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  in?: z.ZodType;
  options?: z.ZodType[];
}

export const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Optional, nullable, default and pipe wrappers removed. */
export function core(s: z.ZodType): z.ZodType {
  const d = defOf(s);
  if (["optional", "nullable", "default", "readonly", "nonoptional", "catch"].includes(d.type))
    return core(d.innerType!);
  if (d.type === "pipe") return core(d.in!);
  return s;
}

export const isOptional = (s: z.ZodType) => s.safeParse(undefined).success;

/**
 * The Pulumi type of a zod schema; object types are added to `types` under `cws:index:<Name>`.
 * `hint` names an anonymous object (the property that holds it).
 */
export function typeOf(schema: z.ZodType, hint: string, types: Record<string, ObjectTypeSpec>): TypeSpec {
  const s = core(schema);
  const d = defOf(s);
  switch (d.type) {
    case "string":
    case "enum":
    case "literal":
    case "template_literal":
      return { type: "string" };
    case "number":
      return { type: (z.toJSONSchema(s) as { type?: string }).type === "integer" ? "integer" : "number" };
    case "int":
      return { type: "integer" };
    case "boolean":
      return { type: "boolean" };
    case "array":
      return { type: "array", items: typeOf(d.element!, hint, types) };
    case "record":
      return { type: "object", additionalProperties: typeOf(d.valueType!, hint, types) };
    case "object": {
      if (OPAQUE.has(hint)) return { type: "object", additionalProperties: { type: "boolean" } };
      const name = NAMES.get(s) ?? pascal(hint);
      const token = `cws:index:${name}`;
      if (!types[token]) {
        const spec: ObjectTypeSpec = { type: "object", properties: {} };
        types[token] = spec;
        const required: string[] = [];
        for (const [k, v] of Object.entries(d.shape!)) {
          const key = fromWireKey(k);
          spec.properties[key] = typeOf(v, key, types);
          if (!isOptional(v)) required.push(key);
        }
        if (required.length) spec.required = required;
      }
      return { $ref: `#/types/${token}` };
    }
    default:
      return { $ref: "pulumi.json#/Any" };
  }
}
