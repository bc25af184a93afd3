/** The engine's marker for values not known until apply (preview with computed inputs). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** The value at a wire field path such as "ports[0].port" or "vm_config.password". */
export function valueAt(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const part of path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== "")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Keeps only the rule violations that do not involve a value still unknown at preview. */
export function knownViolations<V extends { field: string }>(body: unknown, violations: V[]): V[] {
  return violations.filter((v) => !containsUnknown(valueAt(body, v.field)));
}
