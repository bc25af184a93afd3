/**
 * The OpenTofu front end called as OpenTofu calls it, without a plugin process: the package schema,
 * a provider over it, cws_workload objects with every attribute, and plans of them.
 */
import { readFileSync } from "node:fs";
import { TofuProvider } from "../../../provider/opentofu/adapter.ts";
import { decodeMsgpack, encodeMsgpack, type MsgValue } from "../../../provider/opentofu/msgpack.ts";
import { resourcesOf, type PackageSchema } from "../../../provider/opentofu/tf-schema.ts";

export type Obj = Record<string, MsgValue>;

export const SCHEMA = JSON.parse(
  readFileSync(new URL("../../../schema.json", import.meta.url), "utf8"),
) as PackageSchema;
export const WORKLOAD = resourcesOf(SCHEMA).find((r) => r.typeName === "cws_workload")!;

/** A provider over the package schema, unconfigured, that logs nowhere. */
export const tofuProvider = () => new TofuProvider(SCHEMA, () => {});

/** A value as OpenTofu sends it (msgpack), and back. */
export const dv = (v: MsgValue) => ({ msgpack: encodeMsgpack(v) });
export const undv = (v: { msgpack: Buffer } | undefined) =>
  v ? (decodeMsgpack(v.msgpack) as Obj) : undefined;

/** A cws_workload object as OpenTofu sends it: every attribute, null unless given. */
export function workload(values: Obj): Obj {
  const nulls = Object.fromEntries(WORKLOAD.attributes.map((a) => [a.name, null]));
  return { ...nulls, timeouts: null, ...values };
}

/** The inputs of a running web workload, and its state once created as wl-1. */
export const WEB = { type: "RENTAL", name: "web", image: "nginx:1.27", resource_name: "gpu-rental-small" };
export const state = (values: Obj) =>
  workload({ id: "wl-1", uid: "wl-1", status: "running", created_at: "2026-01-01T00:00:00Z", ...values });

export interface Diag {
  severity: string;
  summary: string;
  detail?: string;
  attribute?: { steps: { attribute_name: string }[] };
}
export interface PlanResponse {
  planned_state?: { msgpack: Buffer };
  requires_replace?: { steps: { attribute_name: string }[] }[];
  planned_identity?: { identity_data: { msgpack: Buffer } };
  diagnostics: Diag[];
}

/** PlanResourceChange of a cws_workload from `prior` (null: a create) to `config`, its planned state decoded. */
export function planWorkload(
  provider: TofuProvider,
  prior: Obj | null,
  config: Obj,
  caps?: unknown,
): PlanResponse & { planned: Obj | undefined } {
  const res = provider.planResourceChange({
    type_name: "cws_workload",
    prior_state: dv(prior),
    proposed_new_state: dv(config),
    config: dv(config),
    client_capabilities: caps,
  }) as PlanResponse;
  return { ...res, planned: undv(res.planned_state) };
}
