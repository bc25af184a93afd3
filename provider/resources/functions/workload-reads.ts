/**
 * The lookups that read what happened to a workload: the workload itself (by uid or by name, its
 * fields as the Workload resource's outputs show them), its events and its log lines. The texts the
 * service returns are redacted as a failed wait's diagnosis redacts them (workload-reads-controller.ts).
 */
import { z } from "zod";
import { LogsQuery, WorkloadEvent } from "../../../api/index.ts";
import { bodyInputsOf } from "../../core/definition.ts";
import { definition as workload } from "../workload/definition.ts";
import { listOf, type FunctionResult, type FunctionSpec } from "./spec.ts";

const uid = (required: boolean) => ({
  schema: z.string().min(1, "uid must not be empty"),
  description: required ? "The workload's uid." : "The workload's uid; give uid or name, not both.",
  ...(required ? { required } : {}),
});

/** Values the service's texts must not show that the service never returns. */
const redactArg = {
  schema: z.array(z.string()),
  description:
    "Values to redact as `[secret]` from the service's texts, besides the API token and the workload's env values (always redacted): its registry and VM passwords, which the service never returns.",
  secret: true,
};

/** An event as a lookup returns it: the fields the service leaves null are left out. */
const EventItem = WorkloadEvent.partial().required({
  workload_uid: true,
  workload_type: true,
  event_type: true,
  created_at: true,
});

/** The Workload's service fields but vmConfig (its only field, the password, is never returned). */
const SHOWN_INPUTS = bodyInputsOf(workload).filter((k) => k !== "vmConfig");

/** The fields a Workload resource's outputs show, each as the resource states it. */
const WORKLOAD_RESULT: Record<string, FunctionResult> = Object.fromEntries([
  ...SHOWN_INPUTS.map((k): [string, FunctionResult] => {
    const p = workload.inputs[k]!;
    const description = k === "name" ? "The workload's name." : p.description;
    return [k, { schema: p.type, description, ...(p.secret ? { secret: true } : {}) }];
  }),
  ...Object.entries(workload.outputs).map(([k, o]): [string, FunctionResult] => [
    k,
    { schema: o.type, description: o.description, ...(k === "uid" ? { required: true } : {}) },
  ]),
]);

export const WORKLOAD_READS = {
  getWorkload: {
    description:
      "A RENTAL, VM or BM workload, by uid or by name, with the fields a Workload resource shows (passwords are never returned; registryAuth stays a secret; the status message is redacted).",
    args: {
      uid: uid(false),
      name: {
        schema: z.string().min(1, "name must not be empty"),
        description:
          "The workload's exact name; give uid or name, not both. Exactly one live RENTAL, VM or BM workload must have it.",
      },
      redact: redactArg,
    },
    validate: ({ uid, name }) =>
      (uid == null) === (name == null)
        ? [
            {
              property: uid == null ? "uid" : "name",
              reason: `give exactly one of uid and name (${uid == null ? "neither" : "both"} given)`,
            },
          ]
        : [],
    result: WORKLOAD_RESULT,
  },
  getWorkloadEvents: {
    description:
      "A workload's events (any type, sandboxes too), oldest first: every page of the service's list. Secrets are redacted from their texts.",
    args: { uid: uid(true), redact: redactArg },
    result: listOf("events", EventItem, "The events, oldest first."),
  },
  getWorkloadLogs: {
    description:
      "A workload's log lines (a VM's serial console), as the service has them now. Secrets are redacted.",
    args: {
      uid: uid(true),
      tail: { schema: LogsQuery.shape.tail, description: "Only the last `tail` lines." },
      previous: {
        schema: z.boolean(),
        description: "The previous container's lines, from before its last restart.",
      },
      since: { schema: LogsQuery.shape.since, description: "Only lines from this RFC 3339 time on." },
      redact: redactArg,
    },
    result: {
      lines: { schema: z.array(z.string()), description: "The log lines, oldest first.", required: true },
    },
  },
} satisfies Record<string, FunctionSpec>;
