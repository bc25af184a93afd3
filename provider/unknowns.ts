/** The engine's marker for values not known until apply (preview with computed inputs). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
