import type { ProvisioningRuleCreate } from "../../api/index.ts";
import type { WorkloadRecord } from "../store/records.ts";
import { newUid } from "../common/util.ts";

export interface ProvisioningRule extends ProvisioningRuleCreate {
  id: string;
}

/**
 * Provisioning rules (admin API, for tests of programs): per organization, the outcome, delay and
 * message of the next deploys of the workloads a rule matches; the latest matching rule wins.
 */
export class ProvisioningRules {
  private rules = new Map<string, ProvisioningRule[]>();

  add(org: string, rule: ProvisioningRuleCreate): ProvisioningRule {
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
}
