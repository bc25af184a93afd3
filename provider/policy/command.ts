/**
 * `cws policy check PLAN.json --config FILE`: the guardrails (rules.ts) over an OpenTofu or
 * Terraform plan (`tofu show -json PLANFILE > PLAN.json`). Each violation is one line naming its
 * level, its rule and the resource address; exit status 1 when a mandatory rule is broken, 0 when
 * only advisory ones are (they warn) or none (nothing is printed), 2 for bad usage, an unreadable
 * plan or a guardrails file with a mistake (the error names the field).
 */
import { readFileSync } from "node:fs";
import { ConfigError, readGuardrails } from "./config.ts";
import { planView } from "./plan.ts";
import { evaluate, type Violation } from "./rules.ts";

export const POLICY_HELP = `Usage: cws policy check PLAN.json --config FILE [--stack NAME]

Checks a plan against the guardrails before anything is created:
  tofu plan -out plan.bin && tofu show -json plan.bin > plan.json
  cws policy check plan.json --config guardrails.json

Options:
  --config FILE   the guardrails (JSON or YAML; the same file as the CrossGuard pack's
                  --policy-pack-config)
  --stack NAME    the stack the BM rule matches (default: $TF_WORKSPACE, else "default")
  -h, --help      show this help

Exit status: 0 within the guardrails (advisory violations are printed as warnings), 1 a mandatory
rule is broken, 2 bad usage, plan or guardrails file. See docs/guardrails.md.
`;

/** The flags of `cws policy check`, for the command line's parser (-h/--help besides). */
export const POLICY_FLAGS = {
  config: { type: "string" },
  stack: { type: "string" },
} as const;

export interface PolicyFlags {
  config?: string;
  stack?: string;
  help?: boolean;
}

/** The flags and positionals as parsed, or the parser's message of a bad flag. */
export type ParsedPolicyFlags = { values: PolicyFlags; positionals: string[] } | { error: string };

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** One line per violation. */
export function describeViolation(v: Violation): string {
  const what = v.level === "mandatory" ? "error" : "warning";
  return `${what}: ${v.rule} (${v.level}): ${v.address ? `${v.address}: ` : ""}${v.message}`;
}

/** `cws policy <args>`: answers the exit status. */
export function policyCommand(
  parsed: ParsedPolicyFlags,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const usage = (message: string) => {
    io.err(`cws policy: ${message}\nRun 'cws policy --help' for the options.\n`);
    return 2;
  };
  if ("error" in parsed) return usage(parsed.error);
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(POLICY_HELP);
    return 0;
  }
  const [sub, plan, ...extra] = positionals;
  if (sub !== "check")
    return usage(sub ? `'${sub}' is not a policy command (check)` : "missing the command: check");
  if (!plan) return usage("missing the plan: cws policy check PLAN.json --config FILE");
  if (extra.length) return usage(`unexpected argument '${extra[0]}'`);
  if (!values.config) return usage("--config FILE is required (the guardrails)");
  let guardrails, view;
  try {
    guardrails = readGuardrails(readFileSync(values.config, "utf8"), values.config);
    view = planView(JSON.parse(readFileSync(plan, "utf8")), values.stack ?? env.TF_WORKSPACE ?? "default");
  } catch (e) {
    const message = e instanceof ConfigError || e instanceof SyntaxError ? e.message : (e as Error).message;
    io.err(`cws policy check: ${message}\n`);
    return 2;
  }
  const violations = evaluate(view, guardrails);
  for (const v of violations) io.err(`${describeViolation(v)}\n`);
  const mandatory = violations.filter((v) => v.level === "mandatory").length;
  if (mandatory) {
    io.err(
      `cws policy check: ${mandatory} mandatory violation${mandatory === 1 ? "" : "s"}: the plan must not be applied\n`,
    );
    return 1;
  }
  return 0;
}
