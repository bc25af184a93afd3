/**
 * Sandbox: an isolated Linux environment made from a sandbox template, or forked from another
 * sandbox. A sandbox is a SANDBOX workload: how a change of each input it sends is applied is the
 * service's rule for that field of SANDBOX workloads (changeOf in api/): in place without
 * redeploy, or replace.
 */
import { z } from "zod";
import {
  NAME_RULES,
  Port,
  WORKLOAD_FIELDS,
  Workload,
  changeOf,
  type WorkloadFieldName,
} from "../../../api/index.ts";
import {
  ADOPT_UID,
  AUTO_NAME_NOTE,
  TIMESTAMPS,
  readyTimeout,
  renamesOf,
  waitForCapacity,
  resourceNameInput,
  uidOutput,
  type Definition,
  type InputDef,
} from "../../core/definition.ts";
import { portsNormaliser, sortedStrings } from "../../core/diff.ts";
import { DEFAULT_READY_TIMEOUT_SEC } from "../../core/timeouts.ts";
import { serviceField, type WireName } from "../../core/wire.ts";
import { RESOURCE_NAME_WIRE, workloadOutputs } from "../workload/outputs.ts";
import { validateSandbox } from "./validate.ts";

/**
 * The field of the SANDBOX workload an input is sent in, the first part of its wire name:
 * `template` is `image`, `ttlSec` is in sandbox_config.
 */
export function workloadField(input: string, wire?: WireName): WorkloadFieldName {
  const field = serviceField(input, wire ? { [input]: wire } : {});
  if (!(field in WORKLOAD_FIELDS))
    throw new Error(`Sandbox input ${input} is sent in ${field}, which is no workload field`);
  return field as WorkloadFieldName;
}

/** An input sent as a field of the SANDBOX workload: its change is the service's rule for that field. */
type FieldInput = Omit<InputDef, "change" | "role">;
/** An input with a `role` (the provider's own, or a request's path): it says its own change. */
type OwnInput = InputDef & Required<Pick<InputDef, "role">>;

/** The inputs, each one sent as a field given the change that the service's rule for its field says. */
function withFieldChanges(inputs: Record<string, FieldInput | OwnInput>): Record<string, InputDef> {
  return Object.fromEntries(
    Object.entries(inputs).map(([k, p]) => [
      k,
      "role" in p ? p : { ...p, change: changeOf("SANDBOX", workloadField(k, p.wire)) },
    ]),
  );
}

const seconds = z.number().int();
const zeroIsUnset = (v: unknown) => v || undefined;

export const definition: Definition = {
  name: "Sandbox",
  what: "sandbox",
  description: "An isolated Linux environment made from a sandbox template, or forked from another sandbox.",
  inputs: withFieldChanges({
    name: {
      type: z.string(),
      description: `${NAME_RULES.sandbox.words}. ${AUTO_NAME_NOTE}`,
      autoName: NAME_RULES.sandbox,
    },
    // A sandbox is a SANDBOX workload whose `image` is the UID of its sandbox template (spec 2.1).
    template: {
      type: z.string(),
      description: "UID of a READY sandbox template (getSandboxTemplates). Give this or forkFrom.",
      wire: { body: "image", record: "sandbox_config.template_uid" },
    },
    // A fork is made by a request on its parent (POST .../fork); the record names the parent.
    forkFrom: {
      type: z.string(),
      description: "UID of a running sandbox to fork: the new sandbox starts with a copy of its files.",
      change: "replace",
      role: "path",
      wire: { record: "sandbox_config.parent_workload_uid" },
    },
    resourceName: resourceNameInput("The inventory shape; by default the template's.", {
      wire: RESOURCE_NAME_WIRE,
    }),
    projectId: { type: z.string(), description: "The project." },
    sshKeys: {
      type: z.array(z.string()),
      description: "SshKey uids, installed in the guest's authorized_keys.",
      normalise: sortedStrings,
    },
    ports: {
      type: z.array(Port),
      description: "TCP or UDP, 1024-65535, no routing; port 22 is reserved.",
      normalise: portsNormaliser(false),
    },
    // sandbox_config holds nothing but the two timeouts: the resource takes them as top-level inputs.
    ttlSec: {
      type: seconds,
      description: "Delete the sandbox after this many seconds (0 or unset: never).",
      normalise: zeroIsUnset,
      wire: "sandbox_config.ttl_sec",
    },
    idleTimeoutSec: {
      type: seconds,
      description:
        "Freeze the sandbox after this many idle seconds (0 or unset: never); smaller than ttlSec.",
      normalise: zeroIsUnset,
      wire: "sandbox_config.idle_timeout_sec",
    },
    // Unset: not managed, so a pause by the idle timeout is not undone. false: kept running.
    frozen: {
      type: z.boolean(),
      description:
        "true freezes the sandbox (processes stopped, files kept); false thaws it and keeps it running; unset leaves it to the service (the idle timeout may pause it).",
      change: "update",
      role: "provider",
    },
    readyTimeoutSec: readyTimeout("running", DEFAULT_READY_TIMEOUT_SEC),
    waitForCapacity: waitForCapacity(
      "a deploy the service answers 503 for (no sandbox capacity) is tried again, with backoff, until it passes; default: until the create's timeout.",
    ),
    adoptUid: ADOPT_UID,
  }),
  outputs: {
    uid: uidOutput("sandbox"),
    ...workloadOutputs,
    costPerHour: { type: Workload.shape.cost_per_hour, description: "USD per hour while running." },
    frozenCostPerHour: { type: z.number(), description: "USD per hour while frozen." },
    templateUid: {
      type: z.string(),
      description: "The template it started from.",
      wire: { record: "sandbox_config.template_uid" },
    },
    parentUid: {
      type: z.string(),
      description: "The sandbox it was forked from.",
      wire: { record: "sandbox_config.parent_workload_uid" },
    },
    revision: { type: Workload.shape.revision, description: "Changes with every redeploy." },
    ...TIMESTAMPS,
  },
  validate: (_olds, news) => validateSandbox(news, renamesOf(definition)),
  // A sandbox the service lost (its host restarted) or put in error is redeployed by up.
  broken: ["error"],
  notes: `All in-place changes are applied without redeploy: running processes survive. The provider
never sends a field the service refuses for sandboxes, and changes only the timeout the program
changed: a new \`ttlSec\` leaves an \`idleTimeoutSec\` the program does not set as it is.

A deploy the service answers \`503 WORKLOAD_SANDBOX_NO_CAPACITY\` is tried again until capacity is
free, for at most \`waitForCapacity\` (\`"2m"\`; \`"0s"\`: not at all) and never past the create's
timeout; then the sandbox stays registered with the reason, and the next \`up\` deploys it. See
[When capacity runs out](../capacity.md).

A deploy the service answers \`503 WORKLOAD_SANDBOX_NO_CAPACITY\` is tried again until capacity is
free, for at most \`waitForCapacity\` (\`"2m"\`; \`"0s"\`: not at all) and never past the create's
timeout; then the sandbox stays registered with the reason, and the next \`up\` deploys it. See
[When capacity runs out](../capacity.md).

A sandbox the service lost (its environment is gone after the service restarted) is in \`error\`: refresh records it, preview shows the update that repairs it (a redeploy), and up deploys it again.`,
  example: { name: "dev", template: "tpl-ubuntu-headless", ttlSec: 3600 },
};
