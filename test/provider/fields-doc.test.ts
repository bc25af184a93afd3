/**
 * The generated reference pages (docs/resources/workload.md, sandbox.md) state the rules of the one
 * table of workload fields (api/workload-fields.ts).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  WORKLOAD_FIELD_NAMES,
  changeOf,
  createAccepts,
  patchAccepts,
  type FieldChange,
  type WorkloadFieldName,
} from "../../api/index.ts";
import { serviceField, snakeToCamel } from "../../provider/core/wire.ts";
import { bodyInputsOf, renamesOf } from "../../provider/core/definition.ts";
import { DEFINITIONS } from "../../provider/registry.ts";

/** Each resource's renamed properties, from its definition. */
const RENAMED = Object.fromEntries(Object.entries(DEFINITIONS).map(([k, d]) => [k, renamesOf(d)])) as Record<
  "Workload" | "Sandbox" | "SandboxTemplate" | "Volume" | "SshKey" | "WorkloadTemplate",
  ReturnType<typeof renamesOf>
>;

const page = (kind: string) =>
  readFileSync(new URL(`../../docs/resources/${kind}.md`, import.meta.url), "utf8");

/** The rows of the first table after `heading` on a page, keyed by their first cell (without backticks). */
function table(doc: string, heading: string): Map<string, Record<string, string>> {
  const section = doc.slice(doc.indexOf(heading));
  const lines = section.split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const l of lines.slice(start)) {
    if (!l.startsWith("|")) break;
    rows.push(
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  const [head, , ...body] = rows;
  return new Map(
    body.map((r) => [r[0]!.replace(/`/g, ""), Object.fromEntries(head!.map((h, i) => [h, r[i]!]))]),
  );
}

const LABEL: Record<FieldChange, string> = {
  update: "update in place",
  redeploy: "update in place; redeploys a deployed workload",
  replace: "replace",
};

const WORKLOAD_TYPES = ["RENTAL", "VM", "BM"] as const;

describe("the reference pages agree with WORKLOAD_FIELDS", () => {
  it("Workload: every service field with its types and how a change is applied", () => {
    const rows = table(page("workload"), "## Inputs");
    const fields = WORKLOAD_FIELD_NAMES.filter((f) => f !== "sandbox_config");
    for (const f of fields) {
      const row = rows.get(snakeToCamel(f));
      expect(row, `docs row for ${f}`).toBeDefined();
      const types = WORKLOAD_TYPES.filter((t) => createAccepts(t, f));
      const stated = /Workload types: ([A-Z, ]+)\./.exec(row!.Description!)?.[1];
      expect(stated, `types of ${f}`).toBe(types.length === 3 ? undefined : types.join(", "));
      const kinds = new Set(types.map((t) => changeOf(t, f)));
      expect(kinds.size, `one change kind for ${f}`).toBe(1);
      expect(row!["A change"], `change of ${f}`).toBe(LABEL[[...kinds][0]!]);
      // A field is either fixed at creation or accepted by PATCH for every type that creates it.
      const patched = types.filter((t) => patchAccepts(t, f));
      expect(patched.length === 0 || patched.length === types.length, `PATCH of ${f}`).toBe(true);
    }
  });

  it("Sandbox: every input that stands for a service field", () => {
    const rows = table(page("sandbox"), "## Inputs");
    for (const input of bodyInputsOf(DEFINITIONS.Sandbox!)) {
      // The field is the one its wire path is sent in: template is image, ttlSec is in sandbox_config.
      const f = serviceField(input, RENAMED.Sandbox) as WorkloadFieldName;
      expect(WORKLOAD_FIELD_NAMES, `field of ${input}`).toContain(f);
      expect(rows.get(input)?.["A change"], `change of ${input}`).toBe(LABEL[changeOf("SANDBOX", f)]);
    }
  });
});
