/**
 * An object's state between OpenTofu and the core: prior state as the core's properties, the
 * state of what the service has (read, import), and the state an apply leaves (the plan with what
 * was known only after apply filled in). No state holds a write-only value (write-only.ts).
 */
import type { Props } from "../core/types.ts";
import type { TfObject } from "./msgpack.ts";
import { isInput } from "./plan.ts";
import type { TfResource } from "./tf-schema.ts";
import { containsUnknownValue, sameJson, sameValue, toCore, toTf } from "./values.ts";
import { keepTwins, priorForDiff, withSecrets } from "./write-only.ts";

/** Prior state as the core's properties (inputs and outputs; `id` and timeouts are ours). */
export function priorProps(r: TfResource, state: TfObject): Props {
  return toCore(
    r.attributes.filter((a) => a.name !== "id"),
    withSecrets(r, state, null),
  );
}

/**
 * Prior state as the core compares it with `next` (planned or configured): a write-only secret
 * whose version changes shows as a changed secret (write-only.ts).
 */
export function diffProps(r: TfResource, state: TfObject, next: TfObject): Props {
  return toCore(
    r.attributes.filter((a) => a.name !== "id"),
    priorForDiff(r, state, next),
  );
}

/** An object's state: inputs as the core reads them back, outputs, the id. */
export function stateOf(r: TfResource, id: string, inputs: Props, outputs: Props): TfObject {
  const all = toTf(r.attributes, { ...outputs, ...inputs });
  for (const a of r.attributes.filter(isInput)) if (inputs[a.key] === undefined) all[a.name] = null;
  return { ...all, id, timeouts: null };
}

/** `fresh` with each value that is the same as `before`'s as it was written (a JSON document keeps its spelling). */
export function keepWritten(r: TfResource, before: TfObject, fresh: TfObject): TfObject {
  const out = { ...fresh };
  for (const a of r.attributes) {
    const was = before[a.name] ?? null;
    if (a.json ? sameJson(was, out[a.name]!) : sameValue(was, out[a.name])) out[a.name] = was;
  }
  return out;
}

/**
 * The state an apply leaves: the planned state, its unknown values taken from the outputs, the
 * write-only twins as planned (as the configuration has them where the plan did not know the
 * whole object), never a write-only value.
 */
export function appliedState(
  r: TfResource,
  planned: TfObject,
  id: string,
  outputs: Props,
  config: TfObject | null,
): TfObject {
  const out = toTf(r.attributes, outputs);
  const state: TfObject = { ...planned };
  for (const a of r.attributes)
    if (containsUnknownValue(state[a.name] ?? null)) state[a.name] = out[a.name] ?? null;
  state.id = id;
  return keepTwins(r, state, planned, config);
}
