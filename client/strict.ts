/**
 * Strict copies of response schemas. The contract's response schemas are tolerant: zod object
 * schemas drop keys they do not know, so a newer service that adds a field does not break an
 * older client. With `strictResponses: true` (conformance tests) every object, however deeply
 * nested, refuses unknown keys instead, so a response carrying an undeclared field fails.
 */
import { z } from "zod";

const cache = new WeakMap<z.ZodType, z.ZodType>();

/** `schema` with every nested object made strict (unknown keys are an error). */
export function strictSchema<S extends z.ZodType>(schema: S): S {
  let out = cache.get(schema);
  if (!out) {
    out = convert(schema);
    cache.set(schema, out);
  }
  return out as S;
}

function convert(s: z.ZodType): z.ZodType {
  if (s instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, v] of Object.entries(s.shape as Record<string, z.ZodType>)) shape[k] = strictSchema(v);
    return z.strictObject(shape);
  }
  if (s instanceof z.ZodOptional) return strictSchema(s.unwrap() as z.ZodType).optional();
  if (s instanceof z.ZodNullable) return strictSchema(s.unwrap() as z.ZodType).nullable();
  if (s instanceof z.ZodArray) return z.array(strictSchema(s.element as z.ZodType));
  if (s instanceof z.ZodUnion)
    return z.union((s.options as z.ZodType[]).map((o) => strictSchema(o)) as [z.ZodType, z.ZodType]);
  return s;
}
