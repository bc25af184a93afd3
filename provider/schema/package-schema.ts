/**
 * The Pulumi package schema (`schema.json`), built from the resource property table, the api/
 * contract and the lookups: each resource from its definition (provider/resources/<kind>/). The
 * native plugin serves it, the OpenTofu provider derives its own schema from it, and `npm run gen`
 * writes it (a test fails when the file is stale).
 */
import { readFileSync } from "node:fs";
import { FUNCTIONS } from "../resources/functions/controller.ts";
import { requiredOf, type Definition, type InputDef } from "../core/definition.ts";
import type { ListDefinition } from "../core/list.ts";
import { DEFINITIONS, LISTS } from "../registry.ts";
import { camelToSnake } from "../core/wire.ts";
import { SETTINGS, SETTING_KEYS } from "../frontend/settings.ts";
import { z } from "zod";
import { core, typeOf, type ObjectTypeSpec, type PropertySpec } from "./zod-types.ts";

export const PACKAGE = "cws";
export const token = (name: string) => `${PACKAGE}:index:${name}`;

/** The provider's settings (frontend/settings.ts): the stack's `cws:*` keys and the provider's inputs. */
const CONFIG: Record<string, PropertySpec> = Object.fromEntries(
  SETTING_KEYS.map((k) => {
    const { env, description, secret } = SETTINGS[k];
    return [
      k,
      {
        type: SETTINGS[k].type ?? "string",
        ...(secret ? { secret: true } : {}),
        description: `${description}${secret ? ", a secret" : ""} (falls back to ${env}).`,
      },
    ];
  }),
);

/** How a change of an input is applied, in words, appended to its description. */
const APPLIED: Record<string, string> = {
  update: "Changing it updates the resource in place.",
  redeploy:
    "Changing it updates the resource in place, and the service redeploys (restarts) a deployed workload.",
  replace: "Changing it replaces the resource.",
  none: "",
};

/** Where a property's Python spelling is not the snake_case of its name, the docstring says it. */
const pythonNote = (k: string, p: InputDef) =>
  p.languageNames?.python
    ? `In Python it is \`${p.languageNames.python}\`: \`${camelToSnake(k)}\` is the constructor's first argument, the resource's own name (in the Args class it stays \`${camelToSnake(k)}\`).`
    : "";

/**
 * A list's filters as the resource's `listInputs` (what `pulumi do <type> list` takes, each a
 * `--kebab-name` flag): strings, as the API's query takes them and as `terraform query`'s list
 * blocks declare them, their allowed values in the description (the List RPC checks them).
 */
const listInputs = (list: ListDefinition) => ({
  type: "object",
  description: list.description,
  properties: Object.fromEntries(
    Object.entries(list.filters).map(([k, f]) => [k, { type: "string", description: f.description }]),
  ),
});

/** A resource's schema entry, from its definition (and its list's, when it has one). */
function resourceSpec(def: Definition, types: Record<string, ObjectTypeSpec>, list?: ListDefinition) {
  const inputProperties: Record<string, PropertySpec> = {};
  for (const [k, p] of Object.entries(def.inputs)) {
    inputProperties[k] = {
      ...typeOf(p.type, k, types),
      description: [p.description, APPLIED[p.change], pythonNote(k, p)].filter(Boolean).join(" "),
      ...(p.default !== undefined ? { default: p.default } : {}),
      ...(p.secret ? { secret: true } : {}),
    };
  }
  const properties: Record<string, PropertySpec> = { ...inputProperties };
  for (const [k, o] of Object.entries(def.outputs))
    properties[k] = { ...typeOf(o.type, k, types), description: o.description };
  const replaceOnChanges = Object.keys(def.inputs).filter((k) => def.inputs[k]!.change === "replace");
  return {
    description: def.description,
    properties,
    required: Object.keys(def.outputs).filter((k) => k === "uid"),
    inputProperties,
    requiredInputs: requiredOf(def),
    ...(replaceOnChanges.length ? { replaceOnChanges } : {}),
    ...(list ? { listInputs: listInputs(list) } : {}),
  };
}

export function buildSchema(version: string): Record<string, unknown> {
  const types: Record<string, ObjectTypeSpec> = {};
  const resources: Record<string, unknown> = {};
  for (const name of Object.keys(DEFINITIONS).sort())
    resources[token(name)] = resourceSpec(DEFINITIONS[name]!, types, LISTS[name]);
  const functions: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(FUNCTIONS).sort(([a], [b]) => a.localeCompare(b))) {
    const itemType = `${name.replace(/^get/, "")}Item`;
    const property = (key: string, p: { schema: z.ZodType; description: string; secret?: boolean }) => ({
      ...typeOf(p.schema, core(p.schema) instanceof z.ZodArray ? itemType : key, types),
      description: p.description,
      ...(p.secret ? { secret: true } : {}),
    });
    const required = (ps: Record<string, { required?: boolean }>) => {
      const keys = Object.keys(ps).filter((k) => ps[k]!.required);
      return keys.length ? { required: keys } : {};
    };
    functions[token(name)] = {
      description: fn.description,
      inputs: {
        type: "object",
        properties: Object.fromEntries(Object.entries(fn.args).map(([k, a]) => [k, property(k, a)])),
        ...required(fn.args),
      },
      outputs: {
        type: "object",
        properties: Object.fromEntries(Object.entries(fn.result).map(([k, r]) => [k, property(k, r)])),
        ...required(fn.result),
      },
    };
  }
  return {
    name: PACKAGE,
    displayName: "Compute Workload Service",
    version,
    description:
      "Workloads (RENTAL, VM, BM), sandboxes, volumes, SSH keys and templates on the Compute Workload Service.",
    keywords: ["pulumi", "cws", "category/cloud"],
    license: "Apache-2.0",
    config: { variables: CONFIG },
    provider: {
      description: "The cws provider: where the service is and who calls it.",
      inputProperties: CONFIG,
    },
    types: Object.fromEntries(Object.entries(types).sort(([a], [b]) => a.localeCompare(b))),
    resources,
    functions,
  };
}

export const schemaText = (schema: Record<string, unknown>) => `${JSON.stringify(schema, null, 2)}\n`;

/** The schema the plugin serves: schema.json beside the package, else built now. */
export function servedSchema(rootDir: URL, version: string): string {
  try {
    return readFileSync(new URL("schema.json", rootDir), "utf8");
  } catch {
    return schemaText(buildSchema(version));
  }
}
