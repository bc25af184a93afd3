/**
 * The one place where Pulumi's camelCase inputs meet the service's snake_case wire format.
 * Keys under `experiments` are opaque switch names ("reserved-gpu") and pass through unchanged.
 */
const OPAQUE = new Set(["experiments"]);

export const camelToSnake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const snakeToCamel = (k: string) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

type Json = unknown;

function convert(value: Json, key: (k: string) => string): Json {
  if (Array.isArray(value)) return value.map((v) => convert(v, key));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const mapped = key(k);
    out[mapped] = OPAQUE.has(mapped) || OPAQUE.has(k) ? v : convert(v, key);
  }
  return out;
}

/** camelCase inputs to a wire body. */
export function toWire<T = Record<string, unknown>>(value: Json): T {
  return convert(value, camelToSnake) as T;
}

/** A wire object to camelCase outputs. */
export function fromWire<T = Record<string, unknown>>(value: Json): T {
  return convert(value, snakeToCamel) as T;
}

/** "vm_config.password" or "ports[1].routing" as the Pulumi property path ("vmConfig.password"). */
export function wireFieldToProperty(field: string): string {
  return field
    .split(".")
    .map((part) => snakeToCamel(part))
    .join(".");
}
