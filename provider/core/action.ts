/**
 * What an action is, stated once beside the resource kind it belongs to
 * (provider/resources/<kind>/actions*.ts): an operation a user triggers rather than declares (a
 * reboot, a command run in a container), with its arguments, the checks that refuse a wrong
 * target before anything runs, and the run itself. An action changes nothing a resource declares:
 * what would (suspend, freeze) is an input of the resource instead. The OpenTofu front end adapts
 * actions to Terraform's protocol (PlanAction, InvokeAction); the reference pages are generated
 * from here.
 */
import type { z } from "zod";
import type { CheckFailure, Context, Props } from "./types.ts";
import { UNKNOWN, containsUnknown } from "./unknowns.ts";

export interface ActionInputDef {
  /** The value's type and rules (from the api/ contract where the service has the rule). */
  type: z.ZodType;
  description: string;
  required?: boolean;
  /** The value an unset input means. */
  default?: unknown;
  /** Never shown (Terraform's plan prints it as sensitive); never in progress or errors. */
  secret?: boolean;
}

/** What an action's checks and its run learn besides its arguments. */
export interface ActionPlan {
  /**
   * Whether the same plan also changes the objects the arguments name (a resource's update that
   * triggers the action): what that change may fix (a stopped workload started) is checked when
   * the action runs instead.
   */
  changing(uid: string): boolean;
}

/** A run's context: the resource operations' context, and progress the user sees as it comes. */
export interface ActionContext extends Context {
  /** A line of progress (never secrets): Terraform prints it under the action as the action runs. */
  progress(message: string): void;
}

export interface ActionDefinition {
  /** Name within the package (`WorkloadReboot`; Terraform's `cws_workload_reboot`). */
  name: string;
  /** The resource kind it belongs to (the definition's `name`: "Workload"). */
  kind: string;
  description: string;
  inputs: Record<string, ActionInputDef>;
  /** Rules among the arguments (each known); failures name the property. */
  validate?(args: Props): CheckFailure[];
  /**
   * What refuses the arguments' target now, asked of the service (a workload of the wrong type, a
   * stopped one); values still unknown (an object the same apply creates) are checked by `invoke`.
   */
  check(ctx: Context, args: Props, plan: ActionPlan): Promise<CheckFailure[]>;
  /** Runs it: progress through `ctx.progress`; throws what failed, in words. */
  invoke(ctx: ActionContext, args: Props): Promise<void>;
  /** What the reference page says besides its table (markdown). */
  notes?: string;
  /** An example of arguments for the reference page. */
  example: Props;
}

/** The arguments with each unset input's default. */
export function withDefaults(def: ActionDefinition, args: Props): Props {
  const out: Props = { ...args };
  for (const [k, p] of Object.entries(def.inputs))
    if (out[k] === undefined && p.default !== undefined) out[k] = p.default;
  return out;
}

/**
 * The arguments' failures that need no service: a required one unset, a value against its rule
 * (the first reason each), the action's own rules; values not known yet are skipped.
 */
export function checkArgs(def: ActionDefinition, args: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [k, p] of Object.entries(def.inputs)) {
    const v = args[k];
    if (v === undefined) {
      if (p.required) failures.push({ property: k, reason: `${k} is required` });
      continue;
    }
    if (v === UNKNOWN || containsUnknown(v)) continue;
    const parsed = p.type.safeParse(v);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue?.path.length ? `${k}[${issue.path.join("][")}]` : k;
      failures.push({ property: at, reason: issue?.message ?? `${k} is not valid` });
    }
  }
  if (failures.length === 0 && def.validate) failures.push(...def.validate(args));
  return failures;
}

/** The failures as one sentence each, for an error of a run. */
export const failureWords = (failures: CheckFailure[]) => failures.map((f) => f.reason).join("; ");
