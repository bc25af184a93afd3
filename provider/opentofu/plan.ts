/**
 * The planned state of a change to an existing object, from the core's diff: what OpenTofu shows
 * and later holds the apply to.
 *
 * - An input is planned as the configuration says, unless the core finds it the same as what the
 *   state holds: then the state's value stays (OpenTofu accepts the prior value for an
 *   equivalent configuration), so what the service fills in (a port's protocol) and a JSON
 *   document's spelling never show as a change.
 * - Computed attributes become "known after apply" when an input changes (all of them on a
 *   replacement; the id, uid and creation time survive an update), else they keep their values.
 * - Replacement where the core replaces, with a warning saying why when the core gives reasons; a
 *   warning when the service redeploys the object.
 * - Write-only values are never planned (null); a changed `*_wo_version` is a change.
 */
import type { DiffResult } from "../core/types.ts";
import { camelToSnake } from "../core/wire.ts";
import { hclWords, warningDiag, type Diagnostic } from "./diagnostics.ts";
import { UNKNOWN_VALUE, type MsgValue, type TfObject } from "./msgpack.ts";
import { type TfAttribute, type TfResource } from "./tf-schema.ts";
import { containsUnknownValue, sameJson, sameValue } from "./values.ts";
import { sameTwins, withoutSecrets } from "./write-only.ts";

/** Computed attributes that keep their value through an update. */
const STABLE = new Set(["id", "uid", "created_at"]);

/** An attribute the configuration may set: not computed, or optional and computed (a data source's uid). */
export const isInput = (a: TfAttribute) => !a.computed || !!a.optional;

export interface PlannedChange {
  planned: TfObject;
  requiresReplace: string[];
  diagnostics: Diagnostic[];
}

export function planChange(
  r: TfResource,
  d: DiffResult,
  prior: TfObject,
  proposed: TfObject,
  config: TfObject,
): PlannedChange {
  const planned: TfObject = { ...proposed };
  const wanted = withoutSecrets(r, config);
  for (const a of r.attributes.filter(isInput)) {
    const want = wanted[a.name] ?? null;
    const had = prior[a.name] ?? null;
    const same =
      (!(a.key in d.detail) || (a.json && sameJson(want, had))) &&
      sameTwins(r, a, had, config[a.name] ?? null);
    planned[a.name] = want !== null && had !== null && same && !containsUnknownValue(want) ? had : want;
  }
  const changed = r.attributes.filter(
    (a) => isInput(a) && !sameValue(planned[a.name], prior[a.name] ?? null),
  );
  const replaced = d.replaces.length > 0 && changed.length > 0;
  for (const a of r.attributes.filter((x) => x.computed)) {
    planned[a.name] =
      (replaced && a.name !== "id") || (changed.length && !STABLE.has(a.name))
        ? UNKNOWN_VALUE
        : (prior[a.name] ?? null);
  }
  const redeploy = replaced ? undefined : redeployWarning(r, d, changed, prior.name ?? null);
  const why = replaced ? reasonsWarning(r, d, prior.name ?? null) : undefined;
  return {
    planned: withoutSecrets(r, planned),
    requiresReplace: d.replaces.map(camelToSnake),
    diagnostics: [redeploy, why].filter((x): x is Diagnostic => x !== undefined),
  };
}

/** Why the object is replaced, said in the plan where the changed attributes alone do not say it. */
function reasonsWarning(r: TfResource, d: DiffResult, name: MsgValue): Diagnostic | undefined {
  if (!d.reasons?.length) return undefined;
  const what = `${r.typeName}${typeof name === "string" ? ` "${name}"` : ""}`;
  const names = new Set(r.attributes.map((a) => a.key));
  return warningDiag(
    `${what} must be replaced: ${hclWords(d.reasons.join("; "), names)}`,
    `Applying this plan creates a new ${what} and deletes the one there is.`,
  );
}

/** The redeploy said in the plan: which changes make the service restart the object. */
function redeployWarning(r: TfResource, d: DiffResult, changed: TfAttribute[], name: MsgValue) {
  const names = changed.filter((a) => d.detail[a.key] === "redeploy").map((a) => a.name);
  if (!names.length) return undefined;
  const what = `${r.typeName}${typeof name === "string" ? ` "${name}"` : ""}`;
  return warningDiag(
    `${names.join(", ")} ${names.length === 1 ? "changes" : "change"}: the service redeploys ${what} (restart)`,
    `Applying this plan updates ${what} in place; the service restarts it to apply ${names.join(", ")}.`,
  );
}
