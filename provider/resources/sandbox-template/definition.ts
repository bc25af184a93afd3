/**
 * SandboxTemplate: a USER sandbox template published from a running sandbox (a snapshot of its
 * files). Update: displayName, description. Replace: name, sourceSandbox.
 */
import { NAME_RULES, PublishBody, SandboxTemplate } from "../../../api/index.ts";
import { z } from "zod";
import {
  AUTO_NAME_NOTE,
  TIMESTAMPS,
  bodyInputsOf,
  readyTimeout,
  type Definition,
} from "../../core/definition.ts";
import { DEFAULT_READY_TIMEOUT_SEC } from "../../core/timeouts.ts";
import { compact, pick } from "../../core/values.ts";
import { contractFailures, toWire } from "../../core/wire.ts";

const zeroIsUnset = (v: unknown) => v || undefined;

export const definition: Definition = {
  name: "SandboxTemplate",
  what: "sandbox template",
  description:
    "A USER sandbox template published from a running sandbox; new sandboxes start with its files.",
  inputs: {
    name: {
      type: SandboxTemplate.shape.name,
      description: `${NAME_RULES.sandboxTemplate.words}. ${AUTO_NAME_NOTE}`,
      change: "replace",
      autoName: NAME_RULES.sandboxTemplate,
    },
    // Required to publish (controller.ts), not in the schema: the service does not say which
    // sandbox an existing template came from, so an imported template has none.
    sourceSandbox: {
      type: z.string(),
      description:
        "UID of the running sandbox whose files it snapshots; required to publish, absent from an imported template (the service does not report it).",
      change: "replace",
      role: "path",
    },
    displayName: {
      type: SandboxTemplate.shape.display_name,
      description: "A display name, at most 128 characters.",
      change: "update",
      normalise: zeroIsUnset,
    },
    description: {
      type: SandboxTemplate.shape.description,
      description: "A description.",
      change: "update",
      normalise: zeroIsUnset,
    },
    readyTimeoutSec: readyTimeout("READY", DEFAULT_READY_TIMEOUT_SEC),
  },
  outputs: {
    uid: {
      type: SandboxTemplate.shape.uid,
      description: "The template's uid (its id); a Sandbox's template.",
    },
    kind: { type: SandboxTemplate.shape.kind, description: "USER." },
    status: { type: SandboxTemplate.shape.status, description: "PENDING, READY or FAILED." },
    // On Workload, Sandbox and Volume `resourceName` is an input; here it is a fact the template reports.
    templateResourceName: {
      type: SandboxTemplate.shape.resource_name,
      description: "The inventory shape its sandboxes get.",
      wire: { record: "resource_name" },
    },
    costPerHour: { type: SandboxTemplate.shape.cost_per_hour, description: "USD per hour of a sandbox." },
    frozenCostPerHour: {
      type: SandboxTemplate.shape.frozen_cost_per_hour,
      description: "USD per hour of a frozen sandbox.",
    },
    ...TIMESTAMPS,
  },
  // sourceSandbox is checked when publishing (controller.ts), not here: OpenTofu validates a
  // configuration without its state, and an imported template has no sourceSandbox.
  validate(_olds, news) {
    return contractFailures(PublishBody, compact(pick(news, PUBLISH_INPUTS)));
  },
  notReady: "did not become READY",
  notes: `Publishing snapshots the running sandbox's files; create waits until the template is READY. Use \`template: t.uid\` on a Sandbox to start from it. A template that is still PENDING cannot be deleted (409).`,
  example: { name: "my-env", sourceSandbox: "<sandbox uid>", displayName: "My environment" },
};

/** Inputs the publish request carries (sourceSandbox is its path). */
export const PUBLISH_INPUTS = bodyInputsOf(definition);
export const publishBody = (inputs: Record<string, unknown>) =>
  toWire<PublishBody>(compact(pick(inputs, PUBLISH_INPUTS)));
