/**
 * What a resource is, stated once: each property with its type (from the api/ contract), its
 * description, whether it is required or secret, its default, how a change of it is applied, and
 * where the service keeps it when its wire name is not the snake_case of its own. The lifecycle
 * (lifecycle.ts) derives its diff rules and wire renames from here; the generators
 * (scripts/gen.ts) derive the schema, the SDK classes and the reference pages.
 */
import { z } from "zod";
import { Timestamp, type NameRule } from "../../api/index.ts";
import type { FieldRule, Normaliser } from "./diff.ts";
import type { CheckFailure, ChangeKind, Props } from "./types.ts";
import { fromStateSummary, type Renames, type WireName } from "./wire.ts";

export interface InputDef {
  type: z.ZodType;
  description: string;
  /** How a change is applied; `none` for inputs that are never compared (adoptUid). */
  change: ChangeKind | "none";
  /**
   * Where the value goes when it is not a field of the request bodies (bodyInputsOf): the path
   * of the create request (`path`: the sandbox a fork or a template is made from), or nowhere on
   * the service (`provider`: the provider's own switches, waits and adoption).
   */
  role?: "path" | "provider";
  required?: boolean;
  /**
   * The input is the object's name, auto-named when the program leaves it unset (naming.ts):
   * optional in Pulumi programs, required where the front end has no auto-naming (OpenTofu).
   * `rule` is the kind's name rule, which auto-names are fitted to.
   */
  autoName?: NameRule;
  /** The value an unset input means (compared even when unset). */
  default?: unknown;
  secret?: boolean;
  normalise?: Normaliser;
  /** Sub-fields the service never returns (passwords): not compared after an import. */
  writeOnly?: readonly string[];
  /** Where the service keeps it, when not at the snake_case of its name. */
  wire?: WireName;
  /**
   * The SDK's spelling in languages where the usual one clashes with a name of its own: Python's
   * first constructor argument is `resource_name`, so its SDK spells a `resourceName` input
   * `resource_name_`. The reference pages and docstrings say so.
   */
  languageNames?: { python?: string };
  /** The SDK's TypeScript type, where the contract's is looser than what a program writes. */
  typescript?: { type: string };
}

export interface OutputDef {
  type: z.ZodType;
  description: string;
  wire?: WireName;
}

export interface Definition {
  /** Type name within the package: `cws:index:<name>`. */
  name: string;
  /** What it is called in messages ("workload", "SSH key"). */
  what: string;
  description: string;
  inputs: Record<string, InputDef>;
  outputs: Record<string, OutputDef>;
  /** Rules no single property states (combinations, transitions); failures name the property. */
  validate?(olds: Props, news: Props): CheckFailure[];
  /** Whether a `redeploy` change redeploys now (false: the object is not deployed, a plain update). */
  redeploys?(olds: Props): boolean;
  /**
   * Inputs that list where the object may run (an inventory resource and its fallbacks): a change
   * of them is applied in place while where it runs now stays acceptable, and replaces it otherwise.
   */
  placement?: Placement;
  /** Whether a replacement must delete the old object first. */
  deleteBeforeReplace?(olds: Props, news: Props): boolean;
  /**
   * The `status` values in which the service reports the object broken (error, lost) while the
   * program wants it running: a refresh that finds one makes the next preview show the update
   * that repairs it.
   */
  broken?: readonly string[];
  /**
   * The `status` values in which the object is not deployed though the program wants it deployed
   * (the service refused the deploy, for credits or capacity): the diff plans the update that
   * deploys it, in place.
   */
  undeployed?: readonly string[];
  /** What to say when the object exists but did not reach its state ("did not come up"). */
  notReady?: string;
  /** TypeScript declarations the SDK class needs besides its Args (types named by `typescript`). */
  typescript?: string;
  /** What the reference page says besides its tables (markdown): behaviour a user meets. */
  notes?: string;
  /** An example of inputs for the reference page, in every language. */
  example: Props;
}

/** How the inputs that list an object's acceptable placements change (Definition.placement). */
export interface Placement {
  /** The inputs that say where the object may run; any of them may be replace-only on the service. */
  inputs: readonly string[];
  /**
   * Why the object, as its last outputs `olds` place it, cannot stay under the new inputs `news`;
   * false when it can (its placement is still a candidate); undefined while a value is not known
   * yet (each input's own change kind applies).
   */
  moves(olds: Props, news: Props): string | false | undefined;
}

/** The adoption input every adoptable resource has (lifecycle.ts handles it). */
export const ADOPT_UID: InputDef = {
  type: z.string(),
  description:
    "UID of an object that already exists on the service. Create takes it under management instead of making a new one: fields that only change by replacement must match, the others are updated to the program's values.",
  change: "none",
  role: "provider",
};

/** The uid output every resource has: its id. */
export const uidOutput = (what: string): OutputDef => ({
  type: z.string(),
  description: `The ${what}'s uid (its id).`,
});

/** How every name input's description ends: what an unset name means. */
export const AUTO_NAME_NOTE =
  "Optional in Pulumi programs: by default the resource's logical name, a hyphen and seven random hex digits (shortened to fit), chosen at the first create and kept; the stack's pulumi:autonaming applies with the native plugin. Required in OpenTofu.";

/**
 * The name input of a resource that is renamed in place (`noun`: how its description names it;
 * `rule`: its kind's name rule), auto-named when unset.
 */
export const nameInput = (noun: string, rule: NameRule): InputDef => ({
  type: z.string(),
  description: `The ${noun}'s name (${rule.words}). ${AUTO_NAME_NOTE}`,
  change: "update",
  autoName: rule,
});

/**
 * `status` and `statusMessage`, read from the record's state summary: `status` of type `status`
 * (described by `statusDescription`), `statusMessage` from its `message`.
 */
export const stateOutputs = (
  status: z.ZodType,
  statusDescription = "The service's status.",
): Record<"status" | "statusMessage", OutputDef> => ({
  status: { type: status, description: statusDescription, wire: fromStateSummary("status") },
  statusMessage: {
    type: z.string(),
    description: "The service's message about the status.",
    wire: fromStateSummary("statusMessage"),
  },
});

/**
 * How Python spells `resourceName`: its constructors' first argument is already `resource_name`,
 * the resource's own name.
 */
export const PYTHON_RESOURCE_NAME = { python: "resource_name_" };

/**
 * The inventory resource an object runs or is provisioned on (`more`: the rest of its rule, its
 * change among it unless the resource derives that).
 */
export const resourceNameInput = <M extends Partial<InputDef>>(
  description: string,
  more: M,
): Omit<InputDef, "change"> & M => ({
  type: z.string(),
  description,
  ...more,
  languageNames: PYTHON_RESOURCE_NAME,
});

/** When the service made and last changed the object. */
export const TIMESTAMPS: Record<"createdAt" | "updatedAt", OutputDef> = {
  createdAt: { type: Timestamp, description: "When it was created." },
  updatedAt: { type: Timestamp, description: "When it was last changed." },
};

/** The wait every resource that waits for a state has. */
export function readyTimeout(what: string, defaultSec: number): InputDef {
  return {
    type: z.number().int(),
    description: `How long create and update wait for ${what}, in seconds (default ${defaultSec}); customTimeouts take precedence.`,
    change: "update",
    default: defaultSec,
    role: "provider",
  };
}

/**
 * How long a create waits for capacity (`waitForCapacity`), a duration (`how`: what it does with
 * the wait). Changing it changes nothing on the service.
 */
export function waitForCapacity(how: string): InputDef {
  return {
    type: z.string(),
    description: `How long a create waits for capacity when the service has none, a duration such as "10m" (the form customTimeouts take); ${how} Never past the create's timeout (customTimeouts, else readyTimeoutSec).`,
    change: "update",
    role: "provider",
  };
}

/** The diff rule of every compared input. */
export function rulesOf(def: Definition): Record<string, FieldRule> {
  const rules: Record<string, FieldRule> = {};
  for (const [k, p] of Object.entries(def.inputs)) {
    if (p.change === "none") continue;
    rules[k] = {
      kind: p.change,
      normalise: p.normalise,
      default: p.default,
      writeOnly: p.writeOnly,
      ...(p.role === "path" ? { unread: true } : {}),
    };
  }
  return rules;
}

/**
 * What `make` gives for a definition, made once per definition (they are constants; the checks
 * ask for these at every call).
 */
function once<T>(make: (def: Definition) => T): (def: Definition) => T {
  const made = new WeakMap<Definition, T>();
  return (def) => {
    let v = made.get(def);
    if (v === undefined) {
      v = make(def);
      made.set(def, v);
    }
    return v;
  };
}

/** Every property (input or output) whose wire field is not the snake_case of its name. */
export const renamesOf: (def: Definition) => Renames = once((def) => {
  const out: Record<string, WireName> = {};
  for (const [k, p] of [...Object.entries(def.inputs), ...Object.entries(def.outputs)])
    if (p.wire) out[k] = p.wire;
  return Object.freeze(out);
});

/**
 * The inputs the request bodies carry as fields (every input without a `role`), in definition
 * order: what a create body is made of and what is read back from the service's record.
 */
export const bodyInputsOf: (def: Definition) => readonly string[] = once((def) =>
  Object.freeze(
    Object.entries(def.inputs)
      .filter(([, p]) => !p.role)
      .map(([k]) => k),
  ),
);

export const secretsOf = (def: Definition) =>
  Object.entries(def.inputs)
    .filter(([, p]) => p.secret)
    .map(([k]) => k);

export const requiredOf = (def: Definition) =>
  Object.entries(def.inputs)
    .filter(([, p]) => p.required)
    .map(([k]) => k);

/** The inputs auto-named when unset (a resource's `name`), with their rule. */
export const autoNamedOf = (def: Definition) =>
  Object.entries(def.inputs).flatMap(([k, p]) => (p.autoName ? [[k, p.autoName] as const] : []));

export const isAdoptable = (def: Definition) => def.inputs.adoptUid !== undefined;
