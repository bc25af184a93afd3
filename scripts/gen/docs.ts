/**
 * docs/resources/<kind>.md: a reference page per resource in the style of Pulumi's registry
 * (description, an example in every language, inputs, outputs, import), from its definition.
 */
import type { z } from "zod";
import type { Definition, InputDef } from "../../provider/core/definition.ts";
import type { Props } from "../../provider/core/types.ts";
import { camelToSnake } from "../../provider/core/wire.ts";
import { core, defOf } from "../../provider/schema/zod-types.ts";
import { HEADER } from "./sdk-classes.ts";
import { NAMED_INPUTS, tsType } from "./ts-types.ts";

const APPLIED: Record<InputDef["change"], string> = {
  update: "update in place",
  redeploy: "update in place; redeploys a deployed workload",
  replace: "replace",
  none: "-",
};

const isRecord = (schema: z.ZodType | undefined) =>
  schema !== undefined && defOf(core(schema)).type === "record";
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const pyName = (def: Definition, k: string) => def.inputs[k]?.languageNames?.python ?? camelToSnake(k);

function ts(v: unknown, indent: string): string {
  if (Array.isArray(v)) return `[${v.map((x) => ts(x, indent)).join(", ")}]`;
  if (v && typeof v === "object")
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${/^\w+$/.test(k) ? k : JSON.stringify(k)}: ${ts(x, indent)}`)
      .join(", ")} }`;
  return JSON.stringify(v);
}

/** A Python value; the keys of a free-form map (a manifest) are kept as the program writes them. */
function py(v: unknown, freeForm = false): string {
  if (Array.isArray(v)) return `[${v.map((x) => py(x)).join(", ")}]`;
  if (v && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `"${freeForm ? k : camelToSnake(k)}": ${py(x)}`)
      .join(", ")}}`;
  if (typeof v === "boolean") return v ? "True" : "False";
  return JSON.stringify(v);
}

/** A Go value of a property whose schema is `schema`. */
function go(v: unknown, schema: z.ZodType | undefined): string {
  const s = schema ? core(schema) : undefined;
  const d = s ? defOf(s) : undefined;
  if (Array.isArray(v)) {
    const item = d?.element ? core(d.element) : undefined;
    const named = item ? NAMED_INPUTS.get(item)?.replace(/Args$/, "") : undefined;
    if (named) return `cws.${named}Array{${v.map((x) => `&${go(x, d!.element)}`).join(", ")}}`;
    return `pulumi.StringArray{${v.map((x) => `pulumi.String(${JSON.stringify(x)})`).join(", ")}}`;
  }
  if (v && typeof v === "object") {
    const named = s ? NAMED_INPUTS.get(s) : undefined;
    const fields = Object.entries(v).map(([k, x]) => `${pascal(k)}: ${go(x, d?.shape?.[camelToSnake(k)])}`);
    if (named) return `cws.${named}{${fields.join(", ")}}`;
    return `pulumi.Map{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: pulumi.Any(${JSON.stringify(x)})`)
      .join(", ")}}`;
  }
  if (typeof v === "number") return `pulumi.Int(${v})`;
  if (typeof v === "boolean") return `pulumi.Bool(${v})`;
  return `pulumi.String(${JSON.stringify(v)})`;
}

function yaml(v: unknown, indent: string): string {
  if (Array.isArray(v)) return v.map((x) => `\n${indent}- ${yaml(x, `${indent}  `).trimStart()}`).join("");
  if (v && typeof v === "object")
    return Object.entries(v)
      .map(
        ([k, x]) =>
          `\n${indent}${k}:${typeof x === "object" ? yaml(x, `${indent}  `) : ` ${yaml(x, indent)}`}`,
      )
      .join("");
  return typeof v === "string" ? v : JSON.stringify(v);
}

function examples(def: Definition): string {
  const e = Object.entries(def.example);
  const v = def.name[0]!.toLowerCase() + def.name.slice(1);
  return [
    "### TypeScript\n\n```typescript",
    "import { " + def.name + ' } from "pulumi-cws/sdk/native"; // or "pulumi-cws/sdk" (dynamic)\n',
    `const ${v} = new ${def.name}("${v}", {\n${e.map(([k, x]) => `  ${k}: ${ts(x, "  ")},`).join("\n")}\n});`,
    "```\n\n### Python\n\n```python\nimport pulumi_cws as cws\n",
    `${camelToSnake(v)} = cws.${def.name}("${v}",\n${e.map(([k, x]) => `    ${pyName(def, k)}=${py(x, isRecord(def.inputs[k]?.type))},`).join("\n")}\n)`,
    "```\n\n### Go\n\n```go",
    `${v}, err := cws.New${def.name}(ctx, "${v}", &cws.${def.name}Args{\n${e.map(([k, x]) => `\t${pascal(k)}: ${go(x, def.inputs[k]?.type)},`).join("\n")}\n})`,
    "```\n\n### YAML\n\n```yaml\nresources:",
    `  ${v}:\n    type: cws:${def.name}\n    properties:${yaml(def.example, "      ")}`,
    "```",
  ].join("\n");
}

export function resourcePage(def: Definition): string {
  const inputs = Object.entries(def.inputs).map(([k, p]) => {
    const notes = [
      p.required ? "**required**" : "",
      p.default !== undefined ? `default \`${JSON.stringify(p.default)}\`` : "",
      p.secret ? "**secret**" : "",
      p.languageNames?.python ? `Python: \`${p.languageNames.python}\`` : "",
    ].filter(Boolean);
    const type = cell(`\`${p.typescript?.type ?? tsType(p.type, false, k, false)}\``);
    return `| \`${k}\` | ${type} | ${APPLIED[p.change]} | ${cell([p.description, ...notes].join(" "))} |`;
  });
  const outputs = Object.entries(def.outputs).map(
    ([k, o]) => `| \`${k}\` | ${cell(`\`${tsType(o.type, false, k)}\``)} | ${cell(o.description)} |`,
  );
  const python = Object.entries(def.inputs).filter(([, p]) => p.languageNames?.python);
  return `<!-- ${HEADER.slice(3).trim()} -->
# ${def.name}

${def.description}

Type token: \`cws:index:${def.name}\` (native plugin), \`pulumi-nodejs:dynamic/cws:${def.name}\` (dynamic provider,
TypeScript). Inputs are the same in every language; only the spelling follows the language
(\`sizeInMb\` is \`size_in_mb\` in Python and \`SizeInMb\` in Go).
${python.length ? `\n**Python:** ${python.map(([k, p]) => `\`${k}\` is spelled \`${p.languageNames!.python}\``).join(", ")}: \`${camelToSnake(python[0]![0])}\` is the first argument of every Python resource constructor (the resource's own name). In \`cws.${def.name}Args(...)\` it keeps its usual spelling.\n` : ""}
${def.notes ? `\n${def.notes}\n` : ""}
## Example

${examples(def)}

## Inputs

| Input | Type | A change | Description |
|---|---|---|---|
${inputs.join("\n")}

## Outputs

Every input is also an output.

| Output | Type | Description |
|---|---|---|
${outputs.join("\n")}

## Import

\`pulumi import cws:index:${def.name} <name> <uid>\` (native plugin), or the \`import\` resource option
with the uid${def.inputs.adoptUid ? "; the dynamic classes turn the `import` option into `adoptUid`" : ""}.
\`${def.name}.get(name, uid)\` reads one without managing it.
`;
}

export function indexPage(defs: Definition[]): string {
  return `<!-- ${HEADER.slice(3).trim()} -->
# Resources

${defs.map((d) => `- [${d.name}](${camelToSnake(d.name[0]!.toLowerCase() + d.name.slice(1)).replace(/_/g, "-")}.md): ${d.description}`).join("\n")}

How a change is applied, what preview says, adoption and creating at most once: [the guide](../resources.md).
`;
}

export type { Props };
