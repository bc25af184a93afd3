/**
 * The plugin's Pulumi package schema (`schema.json`), built from the resource property table,
 * the api/ contract and the lookups, with descriptions from docs/resources.md.
 * `npm run schema` writes it; a test fails when the file is stale.
 */
import { readFileSync } from "node:fs";
import { FUNCTIONS } from "../functions.ts";
import { RESOURCES } from "../registry.ts";
import { RESOURCE_PROPERTIES } from "./properties.ts";
import { typeOf, type ObjectTypeSpec, type PropertySpec } from "./zod-types.ts";

export const PACKAGE = "cws";
export const token = (name: string) => `${PACKAGE}:index:${name}`;

/** Descriptions of resource inputs, by resource type and property, read from docs/resources.md. */
export type Descriptions = Record<string, Record<string, string>>;

const CONFIG: Record<string, PropertySpec> = {
  baseUrl: {
    type: "string",
    description: "Base URL of the service including /v3 (falls back to CWS_BASE_URL).",
  },
  org: { type: "string", description: "Organization slug (falls back to CWS_ORG)." },
  apiToken: {
    type: "string",
    secret: true,
    description: "API token, a secret (falls back to CWS_API_TOKEN).",
  },
};

const strip = (s: string) => s.replace(/\*\*/g, "").trim();

/**
 * Input descriptions from docs/resources.md: its input tables (columns found by their headers:
 * Input, Types, Applied by, Notes), and `name` (how it applies) in prose.
 */
export function descriptionsFromDocs(markdown: string): Descriptions {
  const out: Descriptions = {};
  let section: string | undefined;
  let columns: string[] = [];
  for (const line of markdown.split("\n").map((l) => l.replace(/\\\|/g, "or"))) {
    const h = /^## (\w+)/.exec(line);
    if (h) {
      section = RESOURCES[h[1]!] ? h[1] : undefined;
      if (section) out[section] = {};
      columns = [];
      continue;
    }
    if (!section) continue;
    if (line.startsWith("|")) {
      const cells = line.slice(1, -1).split("|").map(strip);
      if (cells[0] === "Input") columns = cells;
      if (!columns.length || cells[0] === "Input" || cells[0]!.startsWith("---")) continue;
      const cell = (name: string) => cells[columns.indexOf(name)] ?? "";
      const types = cell("Types");
      const applied = cell("Applied by");
      const text = [
        cell("Notes"),
        types && types !== "all" ? `Workload types: ${types}` : "",
        applied && applied !== "-" ? `Applied by: ${applied}` : "",
      ]
        .filter(Boolean)
        .map((t) => t.replace(/\.$/, ""))
        .join(". ");
      for (const name of cell("Input").split(",")) out[section]![name.trim()] = `${text}.`;
      continue;
    }
    for (const m of line.matchAll(/`(\w+)` \(([^)]*)\)/g)) out[section]![m[1]!] ??= `Applied by: ${m[2]}.`;
  }
  return out;
}

export function buildSchema(descriptions: Descriptions, version: string): Record<string, unknown> {
  const types: Record<string, ObjectTypeSpec> = {};
  const resources: Record<string, unknown> = {};
  for (const name of Object.keys(RESOURCES).sort()) {
    const p = RESOURCE_PROPERTIES[name];
    if (!p) throw new Error(`${name} has no entry in provider/native/properties.ts`);
    const inputProperties: Record<string, PropertySpec> = {};
    for (const [k, schema] of Object.entries(p.inputs)) {
      inputProperties[k] = {
        ...typeOf(schema, k, types),
        ...(descriptions[name]?.[k] ? { description: descriptions[name]![k] } : {}),
        ...(p.secrets.includes(k) ? { secret: true } : {}),
      };
    }
    const properties: Record<string, PropertySpec> = { ...inputProperties };
    for (const [k, schema] of Object.entries(p.outputs)) properties[k] = typeOf(schema, k, types);
    resources[token(name)] = {
      description: p.description,
      properties,
      required: Object.keys(p.outputs).filter((k) => k === "uid"),
      inputProperties,
      requiredInputs: p.required,
    };
  }
  const functions: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(FUNCTIONS).sort(([a], [b]) => a.localeCompare(b))) {
    const itemType = typeOf(fn.result.item, `${name.replace(/^get/, "")}Item`, types);
    functions[token(name)] = {
      description: fn.description,
      inputs: {
        type: "object",
        properties: Object.fromEntries(
          Object.entries(fn.args).map(([k, a]) => [
            k,
            { ...typeOf(a.schema, k, types), description: a.description },
          ]),
        ),
      },
      outputs: {
        type: "object",
        properties: {
          [fn.result.name]: { type: "array", items: itemType, description: fn.result.description },
        },
        required: [fn.result.name],
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
    const docs = readFileSync(new URL("docs/resources.md", rootDir), "utf8");
    return schemaText(buildSchema(descriptionsFromDocs(docs), version));
  }
}
