/**
 * GenerateResourceConfig (Terraform 1.14+; `terraform query -generate-config-out` and
 * `plan -generate-config-out`): the configuration a person would write for an object, from its
 * state as an import or a list reads it. Kept: the inputs as the read gives them, which are the
 * ones set on the service (a suspended workload's `suspended = true`; an input never set, and
 * the provider's waits, adoption and fallbacks, which no read gives, stay unset). Left out (null,
 * which Terraform does not write for a computed attribute): every computed attribute (`id`,
 * `uid`, `status`, ...), the write-only twins and the timeouts. What the service filled in (a
 * port's protocol) stays: Terraform plans an optional attribute as the configuration has it, so
 * leaving it out would plan a change after the import. The config applies as the import it
 * comes with and then plans with no change, as `cws adopt --format tofu`'s does.
 *
 * Terraform writes the value itself (internal/genconfig): an optional attribute left out is
 * written `= null`, and a sensitive one `= null # sensitive` whatever the provider returns: the
 * passwords the service never returns, and a workload template's manifest, are for the user to
 * fill in (docs/query.md).
 */
import type { Definition } from "../core/definition.ts";
import type { TfObject, MsgValue } from "./msgpack.ts";
import type { TfResource } from "./tf-schema.ts";

/** `state` as configuration: the inputs a person writes, everything else null. */
export function configOf(r: TfResource, def: Definition, state: TfObject | null): TfObject | null {
  if (!state) return null;
  const twins = new Set(
    r.writeOnly.flatMap((t) => [`${t.attribute}.${t.wo}`, `${t.attribute}.${t.version}`]),
  );
  const out: TfObject = { timeouts: null };
  for (const a of r.attributes) {
    const input = def.inputs[a.key];
    let v: MsgValue = state[a.name] ?? null;
    if (a.computed || !input) v = null;
    if (v !== null && a.nested?.nesting === "SINGLE" && typeof v === "object" && !Array.isArray(v)) {
      const nested = { ...(v as TfObject) };
      for (const n of a.nested.attributes) if (twins.has(`${a.name}.${n.name}`)) nested[n.name] = null;
      v = nested;
    }
    out[a.name] = v;
  }
  return out;
}
