/**
 * OpenTofu diagnostics: errors and warnings, with the attribute they are about so that OpenTofu
 * shows the line of the configuration. The core names properties in camelCase
 * ("vmConfig.password", "ports[0].port"); here they become HCL paths (vm_config.password,
 * ports[0].port) and the words of the reason use the HCL names too.
 */
import { camelToSnake } from "../core/wire.ts";

export type Step = { attribute_name: string } | { element_key_int: number } | { element_key_string: string };

export interface Diagnostic {
  severity: "ERROR" | "WARNING";
  summary: string;
  detail?: string;
  attribute?: { steps: Step[] };
}

/** "ports[0].port" → steps ports, [0], port (attribute names in snake_case). */
export function stepsOf(property: string): Step[] {
  return property
    .split(/\.|\[(\d+)\]/)
    .filter((p): p is string => p !== undefined && p !== "")
    .map((p) => (/^\d+$/.test(p) ? { element_key_int: Number(p) } : { attribute_name: camelToSnake(p) }));
}

/** The path as a user writes it: `ports[0].port`. */
export function hclPath(property: string): string {
  return stepsOf(property)
    .map((s, i) =>
      "element_key_int" in s
        ? `[${s.element_key_int}]`
        : `${i ? "." : ""}${"attribute_name" in s ? s.attribute_name : ""}`,
    )
    .join("");
}

/** A reason from the core in HCL names: camelCase words that are property names become snake_case. */
export function hclWords(text: string, names: ReadonlySet<string>): string {
  return text.replace(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, (w) => (names.has(w) ? camelToSnake(w) : w));
}

export const errorDiag = (summary: string, detail?: string, property?: string): Diagnostic => ({
  severity: "ERROR",
  summary,
  ...(detail ? { detail } : {}),
  ...(property ? { attribute: { steps: stepsOf(property) } } : {}),
});

export const warningDiag = (summary: string, detail?: string): Diagnostic => ({
  severity: "WARNING",
  summary,
  ...(detail ? { detail } : {}),
});

export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
