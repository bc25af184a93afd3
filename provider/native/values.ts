/**
 * Property values between the engine's protobuf Structs and the plain objects the resource
 * modules take. Secrets arrive wrapped (the plugin accepts secrets): they are unwrapped for the
 * modules and the keys that held them are remembered, so outputs can be wrapped again. Unknown
 * values (preview) stay the engine's unknown marker, which the modules understand.
 */
import structPb from "google-protobuf/google/protobuf/struct_pb.js";
import type { Props } from "../core/types.ts";

type Struct = InstanceType<typeof structPb.Struct>;

/** The signature key and value of a secret (and of other special values) in Pulumi's wire format. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

function isSecret(v: unknown): v is { value: unknown } {
  return !!v && typeof v === "object" && (v as Props)[SIG_KEY] === SECRET_SIG;
}

/** Removes secret wrappers anywhere in a value. */
export function unwrap(v: unknown): unknown {
  if (isSecret(v)) return unwrap(v.value);
  if (Array.isArray(v)) return v.map(unwrap);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrap(x)]));
  return v;
}

function containsSecret(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  if (v && typeof v === "object") return Object.values(v).some(containsSecret);
  return false;
}

export interface Decoded {
  props: Props;
  /** Top-level keys that held a secret (anywhere inside). */
  secrets: Set<string>;
  /** Every string inside a secret: what the service's texts must never show (core/wait.ts). */
  secretValues: string[];
}

/** The strings inside the secrets of `v` (every string of a secret object or list). */
function secretStrings(v: unknown, inside = false, out: string[] = []): string[] {
  if (isSecret(v)) return secretStrings(v.value, true, out);
  if (typeof v === "string" && inside) out.push(v);
  else if (Array.isArray(v)) for (const x of v) secretStrings(x, inside, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) secretStrings(x, inside, out);
  return out;
}

/**
 * A Struct from the engine as plain props, with the keys that carried secrets. `upgrade` (state
 * migrations) sees the values before secrets are unwrapped, so what it moves stays secret.
 */
export function decode(s: Struct | undefined, upgrade: (raw: Props) => Props = (raw) => raw): Decoded {
  const raw = upgrade((s?.toJavaScript() ?? {}) as Props);
  const secrets = new Set(Object.keys(raw).filter((k) => containsSecret(raw[k])));
  return { props: unwrap(raw) as Props, secrets, secretValues: secretStrings(raw) };
}

export function secret(value: unknown): Props {
  return { [SIG_KEY]: SECRET_SIG, value };
}

/** Drops undefined members deeply (a Struct has no undefined). */
function defined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : defined(x)));
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => [k, defined(x)]),
    );
  }
  return v;
}

/** Plain props as a Struct for the engine; the keys in `secrets` are wrapped as secrets. */
export function encode(props: Props, secrets: Iterable<string> = []): Struct {
  const out = defined(props) as Props;
  for (const k of new Set(secrets)) if (out[k] !== undefined && out[k] !== null) out[k] = secret(out[k]);
  return structPb.Struct.fromJavaScript(out as Parameters<typeof structPb.Struct.fromJavaScript>[0]);
}
