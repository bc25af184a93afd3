/**
 * A module's diff as the engine's DiffResponse: a PropertyDiff per changed property (update,
 * update that redeploys, replace). The words said on the resource's line are core/diff-words.ts.
 */
import providerPb from "@pulumi/pulumi/proto/provider_pb.js";
import type { DiffResult, Props } from "../core/types.ts";

const Kind = providerPb.PropertyDiff.Kind;

function kindOf(replace: boolean, before: unknown, after: unknown) {
  if (before === undefined) return replace ? Kind.ADD_REPLACE : Kind.ADD;
  if (after === undefined) return replace ? Kind.DELETE_REPLACE : Kind.DELETE;
  return replace ? Kind.UPDATE_REPLACE : Kind.UPDATE;
}

export function diffResponse(d: DiffResult, olds: Props, news: Props) {
  const res = new providerPb.DiffResponse();
  const keys = Object.keys(d.detail);
  res.setChanges(
    keys.length || d.changes
      ? providerPb.DiffResponse.DiffChanges.DIFF_SOME
      : providerPb.DiffResponse.DiffChanges.DIFF_NONE,
  );
  res.setDiffsList(keys);
  res.setReplacesList(d.replaces);
  res.setDeletebeforereplace(d.deleteBeforeReplace);
  res.setHasdetaileddiff(true);
  const map = res.getDetaileddiffMap();
  for (const k of keys) {
    const pd = new providerPb.PropertyDiff();
    // `status` is an output: the broken object's status, which the redeploy repairs.
    const output = k === "status";
    pd.setKind(output ? Kind.UPDATE : kindOf(d.detail[k] === "replace", olds[k], news[k]));
    pd.setInputdiff(!output);
    map.set(k, pd);
  }
  return res;
}
