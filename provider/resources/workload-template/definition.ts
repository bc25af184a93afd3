/**
 * WorkloadTemplate: a reusable workload manifest. Update: name, description, manifest. Replace:
 * type. The manifest is written like Workload inputs (camelCase) and validated as a workload
 * create body whose type is the template's.
 */
import { z } from "zod";
import {
  NAME_RULES,
  TemplateCreate,
  WRITE_ONLY_FIELDS,
  WorkloadTemplate,
  validateWorkloadCreate,
} from "../../../api/index.ts";
import { TIMESTAMPS, bodyInputsOf, uidOutput, type Definition, nameInput } from "../../core/definition.ts";
import type { CheckFailure, Props } from "../../core/types.ts";
import { containsUnknown } from "../../core/unknowns.ts";
import { compact, pick } from "../../core/values.ts";
import { failureOf, schemaFailures, snakeToCamel, toWire } from "../../core/wire.ts";

function withoutType(v: unknown): unknown {
  if (!v || typeof v !== "object") return v;
  const { type: _type, ...rest } = v as Props;
  return rest;
}

/** The wire manifest: camelCase keys converted, type filled in from the template's type. */
export function wireManifest(inputs: Props): Record<string, unknown> {
  return { type: inputs.type, ...toWire<Record<string, unknown>>(inputs.manifest ?? {}) };
}

function validate(news: Props): CheckFailure[] {
  if (containsUnknown(news)) return [];
  // The manifest is checked below, as a workload's create body.
  const failures = schemaFailures(
    TemplateCreate,
    compact({ ...pick(news, bodyInputsOf(definition)), manifest: {} }),
  );
  const manifest = news.manifest as Props | undefined;
  if (!manifest || typeof manifest !== "object")
    return [...failures, { property: "manifest", reason: "manifest is required" }];
  if (manifest.type !== undefined && manifest.type !== news.type) {
    failures.push({
      property: "manifest.type",
      reason: `manifest.type must equal type (${String(news.type)})`,
    });
  }
  const result = validateWorkloadCreate(wireManifest(news));
  if (!result.ok) {
    for (const v of result.violations) {
      const f = failureOf(v);
      failures.push({ property: `manifest.${f.property}`, reason: `manifest: ${f.reason}` });
    }
  }
  return failures;
}

export const definition: Definition = {
  name: "WorkloadTemplate",
  what: "workload template",
  description: "A reusable workload template (not a sandbox template).",
  inputs: {
    name: nameInput("template", NAME_RULES.object),
    description: {
      type: WorkloadTemplate.shape.description,
      description: "A description.",
      change: "update",
      normalise: (v) => v || undefined,
    },
    type: {
      type: z.enum(["RENTAL", "VM", "BM"]),
      description: "The workload type it makes: RENTAL, VM or BM.",
      change: "replace",
      required: true,
    },
    manifest: {
      type: z.record(z.string(), z.unknown()),
      description:
        "Written like Workload inputs (camelCase, without the lifecycle inputs); its type is the template's. Kept as a secret: it may hold passwords.",
      change: "update",
      required: true,
      secret: true,
      // The passwords the service never returns, at their place in the manifest.
      writeOnly: Object.entries(WRITE_ONLY_FIELDS).flatMap(([f, subs]) =>
        (subs ?? []).map((sub) => `${snakeToCamel(f)}.${sub}`),
      ),
      typescript: { type: "WorkloadManifest" },
      normalise: withoutType,
    },
  },
  outputs: {
    uid: uidOutput("template"),
    visibility: { type: WorkloadTemplate.shape.visibility, description: "PUBLIC or PRIVATE." },
    ...TIMESTAMPS,
  },
  validate: (_olds, news) => validate(news),
  typescript: `import type { WorkloadArgs } from "./workload.ts";

/** A workload manifest: Workload inputs without the lifecycle switches; \`type\` comes from the template. */
export type WorkloadManifest = Omit<WorkloadArgs, "type" | "deploy" | "suspended" | "readyTimeoutSec" | "adoptUid"> & {
  type?: WorkloadArgs["type"];
};
`,
  notes: `The manifest is validated at preview as a create body of the template's type, and kept as a secret in state (it may hold passwords the service never returns; refresh keeps the ones in state).`,
  example: {
    name: "web",
    type: "RENTAL",
    manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
  },
};
