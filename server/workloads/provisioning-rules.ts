import type { ProvisioningRuleCreate } from "../../api/index.ts";
import type { WorkloadRecord } from "../store/records.ts";
import { newUid } from "../common/util.ts";
import { ApiError } from "../http/errors.ts";

export interface ProvisioningRule extends ProvisioningRuleCreate {
  id: string;
}

/**
 * Provisioning rules (admin API, for tests of programs): per organization, the outcome, delay and
 * message of the next deploys of the workloads a rule matches; the latest matching rule wins. A
 * rule with `failure` stages that failure with its events and log lines (staged-failures.ts).
 */
export class ProvisioningRules {
  private rules = new Map<string, ProvisioningRule[]>();

  add(org: string, rule: ProvisioningRuleCreate): ProvisioningRule {
    if (rule.outcome === undefined && rule.failure === undefined)
      throw new ApiError("INVALID_BODY", "outcome is required unless failure is given");
    if (rule.failure !== undefined && rule.outcome === "running")
      throw new ApiError(
        "INVALID_BODY",
        `failure ${rule.failure} stages a deploy that fails: outcome must be error or left out`,
      );
    for (const k of ["exit_code", "restarts", "logs"] as const)
      if (rule[k] !== undefined && rule.failure === undefined)
        throw new ApiError("INVALID_BODY", `${k} is for a staged failure: give failure too`);
    const r = { ...rule, id: newUid("prov") };
    this.rules.set(org, [...(this.rules.get(org) ?? []), r]);
    return r;
  }

  clear(org: string): void {
    this.rules.delete(org);
  }

  list(org: string): ProvisioningRule[] {
    return this.rules.get(org) ?? [];
  }

  match(w: WorkloadRecord): ProvisioningRule | undefined {
    const rules = this.rules.get(w.org) ?? [];
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i]!;
      if (r.workload_uid !== undefined && r.workload_uid !== w.uid) continue;
      if (r.name !== undefined && r.name !== w.name) continue;
      return r;
    }
    return undefined;
  }

  /** Drops every organization's rules (admin reset). */
  reset(): void {
    this.rules = new Map();
  }

  /** Every organization's rules, for a snapshot (server/admin/state.ts). */
  save(): Record<string, ProvisioningRule[]> {
    return Object.fromEntries([...this.rules].map(([org, rules]) => [org, rules.map((r) => ({ ...r }))]));
  }

  /** Replaces every organization's rules with those `save` gave. */
  restore(saved: Record<string, ProvisioningRule[]>): void {
    this.rules = new Map(Object.entries(saved).map(([org, rules]) => [org, rules.map((r) => ({ ...r }))]));
  }
}
