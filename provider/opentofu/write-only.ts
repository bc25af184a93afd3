/**
 * Write-only secrets (OpenTofu 1.11+, Terraform 1.11+): each secret sub-field the service never
 * returns (a workload's `registry_auth.password`, `vm_config.password`: the definitions' `secret`
 * inputs with `writeOnly` sub-fields) has a twin beside it, after Terraform's convention:
 *
 *     registry_auth = { server = "...", username = "...", password_wo = var.pw, password_wo_version = 1 }
 *
 * `password_wo` is write-only: OpenTofu hands it to the provider in the configuration only, and
 * the provider returns it null in every planned and new state, so neither state, the saved plan
 * nor `tofu show -json` holds it. `password_wo_version` is kept in state: changing it is what
 * sends the new secret, as the same change as a new `password` (an update that redeploys a
 * deployed RENTAL workload; a new VM). The stored `password` keeps working (older OpenTofu,
 * existing state); the two forms are exclusive. The schema has the twins from tf-schema.ts.
 *
 * The core knows only the stored form: the front end puts the write-only value in its place
 * (withSecrets) and, for the diff, stands a marker in for a prior write-only secret whose version
 * changed (priorForDiff), so the core sees the password change.
 */
import type { CheckFailure } from "../core/types.ts";
import { snakeToCamel } from "../core/wire.ts";
import { UNKNOWN_VALUE, type MsgValue, type TfObject } from "./msgpack.ts";
import { WRITE_ONLY_SINCE, type TfAttribute, type TfResource, type WriteOnlyTwin } from "./tf-schema.ts";
import { sameValue } from "./values.ts";

/** The object a twin's attribute holds in `obj`, when it is one (not null, not unknown). */
function nestedOf(obj: TfObject | null | undefined, t: WriteOnlyTwin): TfObject | undefined {
  const v = obj?.[t.attribute];
  return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
}

/** `obj` with the nested objects of the twins replaced by `each`'s answer. */
function mapTwins(
  r: TfResource,
  obj: TfObject,
  each: (t: WriteOnlyTwin, nested: TfObject) => TfObject,
): TfObject {
  if (!r.writeOnly.length) return obj;
  const out: TfObject = { ...obj };
  for (const t of r.writeOnly) {
    const n = nestedOf(out, t);
    if (n) out[t.attribute] = each(t, n);
  }
  return out;
}

const isSet = (v: MsgValue | undefined) => v !== null && v !== undefined;

/**
 * `obj` as the core takes it: each write-only value (from `config`, which alone holds them)
 * moved into its stored sub-field, the twins themselves left out.
 */
export function withSecrets(r: TfResource, obj: TfObject, config: TfObject | null = obj): TfObject {
  return mapTwins(r, obj, (t, n) => {
    const secret = nestedOf(config, t)?.[t.wo] ?? null;
    return {
      ...n,
      [t.stored]: isSet(secret) ? secret : (n[t.stored] ?? null),
      [t.wo]: null,
      [t.version]: null,
    };
  });
}

/**
 * Prior state as the core compares it with `next` (the planned or proposed object): a secret
 * sent write-only is not in state, so when its version changes (or the stored form replaces it)
 * a marker stands in for it and the core sees the password change, of the kind a password change
 * is. An unchanged version leaves it out: the core takes the program's value as the service's.
 */
export function priorForDiff(r: TfResource, prior: TfObject, next: TfObject): TfObject {
  return mapTwins(r, prior, (t, n) => {
    const was = n[t.version] ?? null;
    const now = nestedOf(next, t)?.[t.version] ?? null;
    const sent = isSet(n[t.stored]) ? n[t.stored]! : null;
    const changed = was !== null && (now === UNKNOWN_VALUE || !sameValue(was, now));
    return {
      ...n,
      [t.stored]: sent ?? (changed ? `(write-only ${t.wo}, version ${String(was)})` : null),
      [t.wo]: null,
      [t.version]: null,
    };
  });
}

/** `obj` without write-only values: what a planned or new state must hold. */
export function withoutSecrets(r: TfResource, obj: TfObject): TfObject {
  return mapTwins(r, obj, (t, n) => ({ ...n, [t.wo]: null }));
}

/**
 * `obj` (a state made from what the service has, or filled in from the outputs) with what only
 * OpenTofu knows taken from `from` (the planned or prior state; `fallback`, the configuration,
 * where `from` does not hold the attribute as an object): the version, and the stored secret as
 * it was written (null when it is sent write-only). Write-only values are dropped.
 */
export function keepTwins(
  r: TfResource,
  obj: TfObject,
  from: TfObject | null,
  fallback: TfObject | null = null,
): TfObject {
  return mapTwins(r, obj, (t, n) => {
    const f = nestedOf(from, t) ?? nestedOf(fallback, t);
    const stored = f && f[t.stored] !== UNKNOWN_VALUE ? (f[t.stored] ?? null) : (n[t.stored] ?? null);
    return { ...n, [t.stored]: stored, [t.wo]: null, [t.version]: f?.[t.version] ?? null };
  });
}

/**
 * Whether the planned value of `a` may stay what state holds (`had`) when the configuration says
 * `want` and the core finds them the same: not when the version differs, nor when a secret state
 * holds is now sent write-only (it leaves state).
 */
export function sameTwins(r: TfResource, a: TfAttribute, had: MsgValue, want: MsgValue): boolean {
  return r.writeOnly
    .filter((t) => t.attribute === a.name)
    .every((t) => {
      const h = nestedOf({ [a.name]: had }, t);
      const w = nestedOf({ [a.name]: want }, t);
      return (
        sameValue(h?.[t.version] ?? null, w?.[t.version] ?? null) &&
        !(isSet(w?.[t.wo]) && isSet(h?.[t.stored]))
      );
    });
}

/**
 * What is wrong with the twins in a configuration: both forms at once, a write-only value
 * without its version (or a version without it), a write-only value for an OpenTofu that would
 * keep it in state (`writeOnlyAllowed`: the client's capability). Failures name core paths
 * (`registryAuth.passwordWo`), which the diagnostics spell in HCL.
 */
export function writeOnlyFailures(
  r: TfResource,
  config: TfObject | null,
  writeOnlyAllowed: boolean,
): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const t of r.writeOnly) {
    const n = nestedOf(config, t);
    if (!n) continue;
    const path = (name: string) => `${t.key}.${snakeToCamel(name)}`;
    const hcl = (name: string) => `${t.attribute}.${name}`;
    if (isSet(n[t.wo]) && !writeOnlyAllowed) {
      failures.push({
        property: path(t.wo),
        reason: `${hcl(t.wo)} is write-only, and this client does not support write-only attributes (it would keep the value in state): they need ${WRITE_ONLY_SINCE} or later. Upgrade, or set ${hcl(t.stored)} instead`,
      });
    } else if (isSet(n[t.wo]) && isSet(n[t.stored])) {
      failures.push({
        property: path(t.wo),
        reason: `${hcl(t.wo)} and ${hcl(t.stored)} are both set: set one (${hcl(t.wo)} keeps the secret out of state and plans)`,
      });
    } else if (isSet(n[t.wo]) && !isSet(n[t.version])) {
      failures.push({
        property: path(t.version),
        reason: `${hcl(t.wo)} needs ${hcl(t.version)}: set it (e.g. 1) and change it whenever ${hcl(t.wo)} changes; the new secret is sent when the version changes`,
      });
    } else if (isSet(n[t.version]) && !isSet(n[t.wo])) {
      failures.push({
        property: path(t.version),
        reason: `${hcl(t.version)} is set without ${hcl(t.wo)}: it only goes with ${hcl(t.wo)}`,
      });
    }
  }
  return failures;
}

/**
 * The core's failures about a stored secret, saying that the write-only form would do too
 * ("vm_config.password is required" → "...; or set vm_config.password_wo with ...").
 */
export function mentionTwins(r: TfResource, failures: CheckFailure[]): CheckFailure[] {
  return failures.map((f) => {
    const t = r.writeOnly.find((x) => f.property === `${x.key}.${snakeToCamel(x.stored)}`);
    if (!t) return f;
    return {
      ...f,
      reason: `${f.reason} (or set ${t.attribute}.${t.wo} with ${t.attribute}.${t.version}, which keeps it out of state)`,
    };
  });
}
