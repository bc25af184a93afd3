/**
 * The neutral view of what a stack will hold after an update, which the rules read: made from a
 * Pulumi preview by the CrossGuard pack (pack.ts) and from a `terraform show -json` plan by
 * `cws policy check` (plan.ts). Only what the rules need, in the service's terms.
 */

/** A value the plan does not know yet (computed from another resource). */
export const UNKNOWN = Symbol("unknown");
export type Maybe<T> = T | typeof UNKNOWN | undefined;

export interface PlannedResource {
  /** What a user finds it by: the Pulumi URN, or the HCL resource address. */
  address: string;
  kind: "Workload" | "Sandbox";
  /** The workload type (RENTAL, VM, BM), SANDBOX for a sandbox. */
  type: Maybe<string>;
  /** The inventory resource name, then the fallbacks the provider may place it on. */
  resourceNames: Maybe<string>[];
  /** The region (BM), then the fallback regions. */
  regions: Maybe<string>[];
  /** Sandboxes: the TTL in seconds (0 or unset: none). */
  ttlSec?: Maybe<number>;
  projectId: Maybe<string>;
  /** Sandboxes: the template's uid. */
  template?: Maybe<string>;
  /**
   * The cost per hour the state records, for an object that exists and keeps its placement
   * through the update (the state's or the plan's prior state's `cost_per_hour`).
   */
  recordedCostPerHour?: number;
}

export interface PlannedStack {
  /** The stack (Pulumi) or workspace (OpenTofu/Terraform), for the BM rule. */
  name: string;
  resources: PlannedResource[];
  /** Sandbox templates' cost per hour by uid, as the plan or the state records them. */
  templateCosts: Map<string, number>;
}

export const known = <T>(v: Maybe<T>): v is T => v !== undefined && v !== UNKNOWN;
