/**
 * The front ends behind the shared scenario list (scenarios.ts): Pulumi stacks whose program is
 * built from the declaration with `fe.sdk` classes (dynamic and native), and an HCL project whose
 * main.tf is rendered from it, run by OpenTofu or Terraform (HCL_TOOLS).
 */
import type { EngineEvent, PulumiFn } from "@pulumi/pulumi/automation/index.js";
import type { Resource } from "@pulumi/pulumi";
import { camelToSnake, snakeToCamel } from "../../../api/index.ts";
import { tfName } from "../../../provider/opentofu/tf-schema.ts";
import { cwsStack } from "../../helpers/stacks.ts";
import type { TestServer } from "../../helpers/server.ts";
import { OPENTOFU, requireTool, tofuProject, type HclTool } from "../../helpers/tofu.ts";
import type { FrontEnd } from "../../helpers/front-ends.ts";
import type { Decl, Driver, Planned, Ref } from "./scenarios.ts";

const isRef = (v: unknown): v is Ref => !!v && typeof v === "object" && "ref" in v;

// --- Pulumi ------------------------------------------------------------------------------------

type Ctor = new (name: string, args: Record<string, unknown>) => Resource & { uid: unknown };

export async function pulumiDriver(server: TestServer, fe: FrontEnd, project: string): Promise<Driver> {
  let current: Record<string, Decl> = {};
  const program: PulumiFn = async () => {
    const made: Record<string, { uid: unknown }> = {};
    const resolve = (v: unknown): unknown =>
      isRef(v)
        ? made[v.ref]!.uid
        : Array.isArray(v)
          ? v.map(resolve)
          : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]))
            : v;
    for (const [name, d] of Object.entries(current)) {
      const C = (fe.sdk as unknown as Record<string, Ctor>)[d.kind]!;
      made[name] = new C(name, resolve(d.inputs) as Record<string, unknown>);
    }
  };
  const s = await cwsStack(server, project, program, {}, fe.env);
  return {
    async plan(declare) {
      current = declare;
      const events: EngineEvent[] = [];
      await s.stack.preview({ onEvent: (e) => events.push(e) });
      const out: Record<string, Planned> = {};
      for (const e of events) {
        const m = e.resourcePreEvent?.metadata;
        if (!m || m.type === "pulumi:pulumi:Stack" || m.type.startsWith("pulumi:providers:")) continue;
        const name = m.urn.split("::").pop()!;
        const op = String(m.op);
        out[name] = op.includes("replace") ? "replace" : op === "delete" ? "delete" : (op as Planned);
      }
      // The words on a resource's own line: the native plugin says when the service redeploys.
      for (const e of events) {
        const d = e.diagnosticEvent;
        const name = d?.urn?.split("::").pop();
        if (name && out[name] === "update" && /the service redeploys/.test(d!.message))
          out[name] = "redeploy";
      }
      return out;
    },
    async apply(declare, opts = {}) {
      current = declare;
      const r = await s.stack.up({ parallel: opts.parallel, continueOnError: opts.continueOnError });
      return r.stdout;
    },
    async outputs() {
      const state = await s.stack.exportStack();
      const resources = (
        state.deployment as { resources?: { urn: string; type: string; outputs?: object }[] }
      ).resources;
      return Object.fromEntries(
        (resources ?? [])
          .filter((r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:"))
          .map((r) => [r.urn.split("::").pop()!, { ...r.outputs }]),
      );
    },
    keepFailed: async () => {},
    async destroy(opts = {}) {
      await s.stack.destroy({ parallel: opts.parallel });
    },
    cleanup: () => s.cleanup(),
  };
}

// --- OpenTofu and Terraform ---------------------------------------------------------------------

const address = (decls: Record<string, Decl>, name: string) => `${tfName(decls[name]!.kind)}.${name}`;

function hcl(v: unknown, decls: Record<string, Decl>, indent = "  "): string {
  if (isRef(v)) return `${address(decls, v.ref)}.uid`;
  if (Array.isArray(v)) return `[${v.map((x) => hcl(x, decls, indent)).join(", ")}]`;
  if (v && typeof v === "object") {
    const inner = Object.entries(v).map(
      ([k, x]) => `${indent}  ${camelToSnake(k)} = ${hcl(x, decls, `${indent}  `)}`,
    );
    return `{\n${inner.join("\n")}\n${indent}}`;
  }
  return JSON.stringify(v);
}

/** main.tf for a declaration; a workload template's manifest is a JSON document. */
export function renderHcl(decls: Record<string, Decl>): string {
  const blocks = Object.entries(decls).map(([name, d]) => {
    const lines = Object.entries(d.inputs).map(([k, v]) =>
      k === "manifest"
        ? `  manifest = jsonencode(${hcl(v, decls)})`
        : `  ${camelToSnake(k)} = ${hcl(v, decls)}`,
    );
    return `resource "${tfName(d.kind)}" "${name}" {\n${lines.join("\n")}\n}`;
  });
  return [
    `terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}`,
    ...blocks,
    "",
  ].join("\n\n");
}

const PLAN_WORDS: [RegExp, Planned][] = [
  [/ will be created$/, "create"],
  [/ will be updated in-place$/, "update"],
  [/ must be replaced$/, "replace"],
  [/ will be destroyed$/, "delete"],
];

/** A project of `tool` (OpenTofu or Terraform: both print the same plan words). */
export async function tofuDriver(server: TestServer, tool: HclTool = OPENTOFU): Promise<Driver> {
  requireTool(tool);
  const p = tofuProject(server, { "main.tf": renderHcl({}) }, {}, tool);
  const run = async (...args: string[]) => {
    const r = await p.run(...args);
    if (r.code !== 0)
      throw new Error(`${tool.command} ${args.join(" ")} exited with ${r.code}:\n${r.output}`);
    return r;
  };
  await run("init");
  let managed = new Set<string>();
  let declared: Record<string, Decl> = {};
  const current = () => declared;
  const parallelism = (n?: number) => (n ? [`-parallelism=${n}`] : []);
  return {
    async plan(declare) {
      declared = declare;
      p.write("main.tf", renderHcl(declare));
      const { stdout } = await run("plan");
      const out: Record<string, Planned> = {};
      for (const name of new Set([...managed, ...Object.keys(declare)])) out[name] = "same";
      for (const line of stdout.split("\n")) {
        const m = /^ {2}# cws_\w+\.(\w+)( .*)$/.exec(line);
        const said = m && PLAN_WORDS.find(([re]) => re.test(m[2]!));
        if (m && said) out[m[1]!] = said[1];
      }
      for (const [name, d] of Object.entries(declare)) {
        const redeploys = new RegExp(
          `Warning: .* the service redeploys ${tfName(d.kind)} "${String(d.inputs.name)}"`,
        );
        if (out[name] === "update" && redeploys.test(stdout)) out[name] = "redeploy";
      }
      return out;
    },
    async apply(declare, opts = {}) {
      declared = declare;
      p.write("main.tf", renderHcl(declare));
      managed = new Set([...managed, ...Object.keys(declare)]);
      const { output } = await run("apply", "-auto-approve", ...parallelism(opts.parallel));
      managed = new Set(Object.keys(declare));
      return output;
    },
    async outputs() {
      const { stdout } = await run("show", "-json");
      const shown = JSON.parse(stdout) as {
        values?: { root_module?: { resources?: { name: string; values: object; tainted?: boolean }[] } };
      };
      return Object.fromEntries(
        (shown.values?.root_module?.resources ?? []).map((r) => [
          r.name,
          {
            ...Object.fromEntries(Object.entries(r.values).map(([k, v]) => [snakeToCamel(k), v as unknown])),
            ...(r.tainted ? { tainted: true } : {}),
          },
        ]),
      );
    },
    async keepFailed(names) {
      const decls = Object.fromEntries(Object.entries(current()).filter(([n]) => names.includes(n)));
      for (const name of names) await run("untaint", address(decls, name));
    },
    async destroy(opts = {}) {
      await run("destroy", "-auto-approve", ...parallelism(opts.parallel));
      managed = new Set();
    },
    cleanup: async () => p.cleanup(),
  };
}
