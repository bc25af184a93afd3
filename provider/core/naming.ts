/**
 * Auto-naming: the name a resource gets when the program leaves `name` unset, so that one program
 * deployed as many stacks in one org makes objects with distinct names (Pulumi's convention).
 *
 * The rule, in order (chooseName):
 * 1. `name` set in the program: that name, as before.
 * 2. The resource already has a name (the old inputs hold one): it keeps it. An auto-name is
 *    chosen once, at the first check of a create, and stays through updates and refreshes;
 *    dropping `name` from a program keeps the name the object has.
 * 3. `adoptUid` without `name`: the adopted object's name is left to the service.
 * 4. The front end offers no auto-naming (OpenTofu: HCL gives `name`): `name` is required.
 * 5. The stack's `pulumi:autonaming` (native plugin, through the engine): `disabled` makes `name`
 *    required; `verbatim` (the logical name) and an enforced pattern are used exactly; a
 *    pattern's proposal is used as it is. A name the kind's rule refuses is refused at check.
 * 6. Otherwise: the logical name, a hyphen and seven random hex digits, the logical name
 *    shortened so that the whole fits the kind's length limit; one the kind's rule still refuses
 *    (its characters) is refused at check, with the rule.
 *
 * Because the name is chosen before the first create attempt and kept in the inputs, every retry
 * of a create sends the same name, and create-once (create-once.ts) recognises the object its own
 * create made by that name: another stack's objects have other names.
 */
import { createHash, randomBytes } from "node:crypto";
import { keepsNameRule, type NameRule } from "../../api/index.ts";
import type { Autonaming, CheckFailure, Props } from "./types.ts";

export type { Autonaming };

/** Random hex digits after the logical name (Pulumi's providers use seven). */
export const SUFFIX_LENGTH = 7;

/** Seven hex digits: from the engine's seed when it gave one (with the logical name), else random. */
export function randomSuffix(naming: Autonaming): string {
  const bytes = naming.seed?.length
    ? createHash("sha256").update(naming.seed).update(naming.logicalName).digest()
    : randomBytes(8);
  return bytes.toString("hex").slice(0, SUFFIX_LENGTH);
}

/** The default auto-name: the logical name, shortened to fit `rule.max`, a hyphen, the suffix. */
export function defaultName(rule: NameRule, naming: Autonaming): string {
  const prefix = naming.logicalName.slice(0, Math.max(0, rule.max - SUFFIX_LENGTH - 1));
  return `${prefix}-${randomSuffix(naming)}`;
}

export interface NameChoice {
  /** The name to use; undefined when the input stays unset (adoption) or on failure. */
  name?: unknown;
  failure?: CheckFailure;
}

/**
 * The value of the auto-named input `key` (a resource's `name`) for the checked inputs: see the
 * rule at the top of this file. `what` names the kind in messages ("workload").
 */
export function chooseName(
  key: string,
  rule: NameRule,
  what: string,
  olds: Props,
  news: Props,
  naming: Autonaming | undefined,
): NameChoice {
  if (news[key] !== undefined) return { name: news[key] };
  if (typeof olds[key] === "string" && olds[key] !== "") return { name: olds[key] };
  if (news.adoptUid !== undefined) return {};
  const refuse = (reason: string): NameChoice => ({ failure: { property: key, reason } });
  if (!naming) return refuse(`${key} is required`);
  const engine = naming.engine;
  if (engine?.mode === "disable")
    return refuse(`${key} is required: the stack's pulumi:autonaming turns auto-naming off (mode disabled)`);
  const fromEngine = engine !== undefined;
  const name = fromEngine ? engine.proposedName : defaultName(rule, naming);
  if (keepsNameRule(rule, name)) return { name };
  const origin = fromEngine
    ? `the name "${name}" that the stack's pulumi:autonaming gives`
    : `the auto-name "${name}" (the logical name "${naming.logicalName}" and a random suffix)`;
  const fix = fromEngine
    ? "change pulumi:autonaming or set name"
    : "set name, or give the resource a logical name that fits";
  return refuse(`${origin} breaks the ${what} name rule: ${rule.words}; ${fix}`);
}
