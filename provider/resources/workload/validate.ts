/** The Workload's check rules that no single property states: types, lifecycle switches, the contract. */
import { validateWorkloadCreate, type WorkloadCreate } from "../../../api/index.ts";
import type { CheckFailure, Props } from "../../core/types.ts";
import { knownViolations } from "../../core/unknowns.ts";
import { failureOf } from "../../core/wire.ts";
import { placementFailures } from "./placement.ts";

/** `body`: the create body `news` make, which the contract checks. */
export function validateWorkload(olds: Props, news: Props, body: WorkloadCreate): CheckFailure[] {
  const failures: CheckFailure[] = [];
  if (news.type === "SANDBOX") {
    failures.push({
      property: "type",
      reason: "type SANDBOX is managed by the Sandbox resource; Workload takes RENTAL, VM or BM",
    });
  }
  if (news.suspended === true && news.type !== "RENTAL") {
    failures.push({
      property: "suspended",
      reason: `suspended is only supported for RENTAL workloads (type is ${String(news.type)})`,
    });
  }
  if (news.suspended === true && news.deploy === false) {
    failures.push({ property: "suspended", reason: "suspended requires deploy to be true" });
  }
  if (olds.deploy !== false && olds.type !== undefined && news.deploy === false) {
    failures.push({
      property: "deploy",
      reason:
        "deploy cannot change from true to false on an existing workload; use suspended (RENTAL) or delete it",
    });
  }
  const t = news.readyTimeoutSec;
  if (t !== undefined && (typeof t !== "number" || !Number.isInteger(t) || t < 1)) {
    failures.push({
      property: "readyTimeoutSec",
      reason: "readyTimeoutSec must be a positive integer number of seconds",
    });
  }
  failures.push(...placementFailures(news));
  const result = validateWorkloadCreate(body);
  if (!result.ok) {
    for (const v of knownViolations(body, result.violations)) failures.push(failureOf(v));
  }
  return failures;
}
