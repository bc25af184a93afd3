/**
 * The name rule of each kind of object (spec sections 2 and 8): how long a name may be and which
 * characters it takes, in one place. The server refuses names that break them, and the provider
 * fits the names it chooses (auto-names) to them.
 */
import { LIMITS } from "./limits.ts";

export interface NameRule {
  /** At most this many characters (and at least one). */
  max: number;
  /** The characters, and where they may stand. */
  pattern: RegExp;
  /** The rule in words, as messages say it: "1-32 characters of lowercase letters, ...". */
  words: string;
}

const rule = (max: number, pattern: RegExp, of: string): NameRule => ({
  max,
  pattern,
  words: `1-${max} characters of ${of}`,
});

export const NAME_RULES = {
  /** RENTAL, VM and BM workloads. */
  workload: rule(LIMITS.workloadNameMax, /^[a-z0-9-]+$/, "lowercase letters, digits and hyphens"),
  /** SANDBOX workloads. */
  sandbox: rule(
    LIMITS.workloadNameMax,
    /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
    "lowercase letters, digits and hyphens, no leading or trailing hyphen",
  ),
  /** Sandbox templates (publish). */
  sandboxTemplate: rule(
    LIMITS.publishNameMax,
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    "letters, digits, dots, underscores and hyphens, starting with a letter or digit",
  ),
  /** Volumes, SSH keys and workload templates: any text (common.ts nameField). */
  object: rule(LIMITS.objectNameMax, /^[\s\S]+$/, "any kind"),
} as const satisfies Record<string, NameRule>;

/** Whether `name` keeps `rule`. */
export const keepsNameRule = (rule: NameRule, name: string): boolean =>
  name.length >= 1 && name.length <= rule.max && rule.pattern.test(name);
