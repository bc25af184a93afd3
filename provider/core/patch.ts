/**
 * Updates in place by PATCH: the body of the changes a diff found, each changed input in its wire
 * form, and the controller's update that sends it. The inputs come from the definition
 * (bodyInputsOf), so an input added there is sent without a list of its own.
 */
import type { Controller } from "./lifecycle.ts";
import type { ChangeKind, Context, Props } from "./types.ts";
import { toWire, type Json, type Renames } from "./wire.ts";

/**
 * The PATCH body of an update: each of `inputs` that `detail` changes in place (update or
 * redeploy), in wire form; an input the program no longer sets is sent as `cleared`.
 */
export function patchOf<T = Record<string, unknown>>(
  inputs: readonly string[],
  want: Props,
  detail: Record<string, ChangeKind>,
  renames: Renames = {},
  cleared: unknown = undefined,
): T {
  const changed = inputs.filter((k) => detail[k] === "update" || detail[k] === "redeploy");
  return toWire<T>(Object.fromEntries(changed.map((k) => [k, want[k] ?? cleared])) as Json, renames);
}

/** A controller's update that sends the changed `inputs` with `send`, and nothing when none changed. */
export function patchUpdate<T>(
  inputs: readonly string[],
  send: (ctx: Context, id: string, patch: T) => Promise<unknown>,
  options: { renames?: Renames; cleared?: unknown } = {},
): Controller<object>["update"] {
  return async (ctx, id, _have, want, detail) => {
    const patch = patchOf<T>(inputs, want, detail, options.renames, options.cleared);
    if (Object.keys(patch as object).length) await send(ctx, id, patch);
  };
}
