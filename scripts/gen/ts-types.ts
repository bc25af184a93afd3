/**
 * TypeScript types of the api/ contract's zod schemas, as the generated SDK classes declare them:
 * camelCase keys, `pulumi.Input` at every level of an input, plain values in outputs.
 */
import { z } from "zod";
import { BmConfig, Env, Port, RegistryAuth, VmConfig, VolumeMount } from "../../api/index.ts";
import { OPAQUE, snakeToCamel } from "../../provider/core/wire.ts";
import { core, defOf, isOptional } from "../../provider/schema/zod-types.ts";

/** Object types the SDK exports under a name of their own (inputs). */
export const NAMED_INPUTS = new Map<z.ZodType, string>([
  [Port, "PortArgs"],
  [Env, "EnvArgs"],
  [RegistryAuth, "RegistryAuthArgs"],
  [VolumeMount, "VolumeMountArgs"],
  [VmConfig, "VmConfigArgs"],
  [BmConfig, "BmConfigArgs"],
]);

interface EnumDef {
  entries?: Record<string, string>;
  values?: unknown[];
}

const inputOf = (t: string, input: boolean) => (input ? `pulumi.Input<${t}>` : t);

/** The fields of an object schema as TypeScript members. */
export function members(shape: Record<string, z.ZodType>, input: boolean, indent: string): string {
  return Object.entries(shape)
    .map(([k, v]) => {
      const t = tsType(v, input, snakeToCamel(k));
      return `${indent}${snakeToCamel(k)}${isOptional(v) ? "?" : ""}: ${inputOf(t, input)};`;
    })
    .join("\n");
}

/** The TypeScript type of a schema; `named` lets an input refer to an exported interface. */
export function tsType(schema: z.ZodType, input: boolean, hint = "", named = true): string {
  const s = core(schema);
  const d = defOf(s) as ReturnType<typeof defOf> & EnumDef;
  const nullable = !input && !isOptional(schema) && s !== schema && schema.safeParse(null).success;
  const t = ((): string => {
    switch (d.type) {
      case "string":
      case "template_literal":
        return "string";
      case "enum":
        return Object.values(d.entries ?? {})
          .map((v) => JSON.stringify(v))
          .join(" | ");
      case "literal":
        return (d.values ?? []).map((v) => JSON.stringify(v)).join(" | ");
      case "number":
      case "int":
        return "number";
      case "boolean":
        return "boolean";
      case "array":
        return `${inputOf(tsType(d.element!, input), input)}[]`;
      case "record":
        return `Record<string, ${inputOf(tsType(d.valueType!, input), input)}>`;
      case "object": {
        if (OPAQUE.has(hint)) return `Record<string, ${inputOf("boolean", input)}>`;
        const name = input && named ? NAMED_INPUTS.get(s) : undefined;
        if (name) return name;
        return `{ ${members(d.shape!, input, "").replace(/\n/g, " ")} }`;
      }
      default:
        return "unknown";
    }
  })();
  return nullable ? `${t} | null` : t;
}
