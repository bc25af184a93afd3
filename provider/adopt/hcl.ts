/**
 * HCL text of plain values, laid out as `tofu fmt` lays them out: objects and lists of objects
 * one item per line, the `=` of consecutive one-line attributes aligned, strings escaped
 * (quotes, backslashes, newlines, and `${` / `%{`, which would start a template). An `Expr` is
 * written as it is: a reference (`cws_volume.data.uid`), a variable, a function call.
 */
export class Expr {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

export type HclValue = string | number | boolean | null | Expr | HclValue[] | { [key: string]: HclValue };

export function hclString(s: string): string {
  const escaped = s
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")
    .replace(/\t/g, "\\t")
    .replace(/\$\{/g, () => "$${")
    .replace(/%\{/g, () => "%%{");
  return `"${escaped}"`;
}

/** An object key: bare when it is an identifier, else quoted. */
export const hclKey = (k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : hclString(k));

const isObject = (v: HclValue): v is { [key: string]: HclValue } =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Expr);

/** A value at `indent` spaces (the indentation of the line it starts on). */
export function hclValue(v: HclValue, indent: number): string {
  if (v === null) return "null";
  if (v instanceof Expr) return v.text;
  if (typeof v === "string") return hclString(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  const pad = " ".repeat(indent + 2);
  if (Array.isArray(v)) {
    if (!v.length) return "[]";
    if (v.every((x) => !isObject(x) && !Array.isArray(x)))
      return `[${v.map((x) => hclValue(x, indent)).join(", ")}]`;
    return `[\n${v.map((x) => `${pad}${hclValue(x, indent + 2)},\n`).join("")}${" ".repeat(indent)}]`;
  }
  const entries = Object.entries(v);
  if (!entries.length) return "{}";
  return `{\n${hclAttributes(entries, indent + 2)}${" ".repeat(indent)}}`;
}

/** Attribute lines (`name = value`), each ending with a newline, aligned as `tofu fmt` does. */
export function hclAttributes(entries: [string, HclValue][], indent: number): string {
  const pad = " ".repeat(indent);
  const lines = entries.map(([k, v]) => ({ key: hclKey(k), text: hclValue(v, indent) }));
  let out = "";
  let group: typeof lines = [];
  const flush = () => {
    const width = Math.max(0, ...group.map((l) => l.key.length));
    for (const l of group) out += `${pad}${l.key.padEnd(width)} = ${l.text}\n`;
    group = [];
  };
  for (const l of lines) {
    if (l.text.includes("\n")) {
      flush();
      out += `${pad}${l.key} = ${l.text}\n`;
    } else group.push(l);
  }
  flush();
  return out;
}

/** A block: `type "label" "label" {` attributes `}`. */
export function hclBlock(type: string, labels: string[], entries: [string, HclValue][]): string {
  const head = [type, ...labels.map(hclString)].join(" ");
  return `${head} {\n${hclAttributes(entries, 2)}}\n`;
}
