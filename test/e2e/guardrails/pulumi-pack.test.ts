/**
 * The guardrails pack under the real Pulumi CLI, started through the executable route
 * (`--policy-pack policy-pack/cws-policy-pack`, the starter shipped in the package; the CLI built
 * here has no Node.js language host to start the pack's folder), with the one guardrails file as
 * `--policy-pack-config`. Every case of cases.ts is previewed in one stack per program, as a YAML
 * program of the native plugin (`cws:index:<Kind>`, the real `pulumi preview`) and as a TypeScript
 * program of the dynamic provider (`pulumi-nodejs:dynamic/cws:<Kind>`, the Automation API): a
 * mandatory violation fails the preview naming the rule and the resource, an advisory one warns,
 * a stack within its limits passes silently; `up` of a blocked stack creates nothing; a file with
 * a mistake fails the run naming the field.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { runProcess } from "../../../scripts/run.ts";
import { engineNodeOptions } from "../../../scripts/offline-stack.ts";
import * as dynamicSdk from "../../../sdk/index.ts";
import { programDir, type ProgramDir } from "../../helpers/program-dir.ts";
import { useTestServer } from "../../helpers/server.ts";
import { cwsStack, failureOf, liveResources } from "../../helpers/stacks.ts";
import { CASES, typescriptProgram, yamlProgram, type GuardrailCase } from "./cases.ts";

const STARTER = join(REPO_ROOT, "policy-pack", "cws-policy-pack");
const CONFIG = join(REPO_ROOT, "test", "fixtures", "guardrails", "guardrails.json");
const MISTAKE = join(REPO_ROOT, "test", "fixtures", "guardrails", "mistake.json");
const RUN_MS = 600_000;

/** Each violation Pulumi prints, `- [level]  rule  (type: name)`: the rule and the resource (undefined: the stack). */
function violations(output: string, level: "mandatory" | "advisory"): [string, string?][] {
  const re = new RegExp(`- \\[${level}\\][ \\t]+(cws-[\\w-]+)(?:[ \\t]+\\(([^)]*)\\))?`, "g");
  return [...output.matchAll(re)].map(([, rule, at]) => {
    const [type, name] = at?.split(": ") ?? [];
    return [rule!, type === "pulumi:pulumi:Stack" ? undefined : name];
  });
}

function expectJudged(c: GuardrailCase, output: string): void {
  const sorted = (l: [string, string?][]) => l.map(([r, k]) => `${r} ${k ?? "(stack)"}`).sort();
  const where = `${c.name}:\n${output.slice(output.indexOf("Policies:"))}`;
  expect(sorted(violations(output, "mandatory")), where).toEqual(sorted(c.mandatory));
  expect(sorted(violations(output, "advisory")), where).toEqual(sorted(c.advisory));
}

describe("the guardrails pack through `--policy-pack <starter>`", () => {
  const server = useTestServer({ each: "reset" });
  const env = { NODE_OPTIONS: engineNodeOptions() };

  describe("a YAML program of the native plugin, by the real `pulumi preview` and `up`", () => {
    let p: ProgramDir;
    let source: string;
    const pulumi = (...args: string[]) =>
      runProcess("pulumi", [...args, "--non-interactive"], {
        cwd: p.project,
        env: p.env,
        allowFailure: true,
      });
    beforeAll(async () => {
      source = mkdtempSync(join(tmpdir(), "cws-guardrails-yaml-"));
      writeFileSync(join(source, "Pulumi.yaml"), yamlProgram(CASES[0]!));
      p = programDir("guardrails-yaml", source, server);
      Object.assign(p.env, env);
      expect((await pulumi("stack", "init", "dev")).code).toBe(0);
    }, 120_000);
    afterAll(() => {
      p?.cleanup();
      if (source) rmSync(source, { recursive: true, force: true });
    });

    it(
      "judges every case at preview; up of a blocked stack creates nothing",
      { timeout: RUN_MS },
      async () => {
        const pack = ["--policy-pack", STARTER, "--policy-pack-config", CONFIG];
        for (const c of CASES) {
          writeFileSync(join(p.project, "Pulumi.yaml"), yamlProgram(c));
          const preview = await pulumi("preview", ...pack);
          expect(preview.code, `${c.name}:\n${preview.output}`).toBe(c.mandatory.length ? 1 : 0);
          expectJudged(c, preview.output);
          if (!c.mandatory.length && !c.advisory.length)
            expect(preview.output).not.toMatch(/Policy Violations/);
        }
        // Over the ceilings (a stack rule: `up` stops after its preview).
        writeFileSync(join(p.project, "Pulumi.yaml"), yamlProgram(CASES[2]!));
        const up = await pulumi("up", "--yes", ...pack);
        expect(up.code, up.output).not.toBe(0);
        expect(violations(up.output, "mandatory").map(([r]) => r)).toContain("cws-gpus-per-stack");
        expect((await liveResources(server)).workloads).toEqual([]);

        // A file with a mistake: the run fails naming the field.
        const bad = await pulumi("preview", "--policy-pack", STARTER, "--policy-pack-config", MISTAKE);
        expect(bad.code).not.toBe(0);
        expect(bad.output).toMatch(
          /cws-gpus-per-stack\.max: Invalid input: expected number, received string/,
        );
      },
    );
  });

  describe("a TypeScript program of the dynamic provider, by the Automation API", () => {
    it(
      "judges every case at preview; up of a blocked stack creates nothing",
      { timeout: RUN_MS },
      async () => {
        const s = await cwsStack(server, "guardrails-ts", typescriptProgram(dynamicSdk, CASES[0]!), {}, env);
        try {
          const opts = { policyPacks: [STARTER], policyPackConfigs: [CONFIG] };
          for (const c of CASES) {
            s.stack.workspace.program = typescriptProgram(dynamicSdk, c);
            let output = "";
            const failed = await failureOf(s.stack.preview({ ...opts, onOutput: (o) => void (output += o) }));
            expect(Boolean(failed), `${c.name}:\n${output}\n${failed?.message ?? ""}`).toBe(
              c.mandatory.length > 0,
            );
            expectJudged(c, output);
          }
          // A disallowed resource name (a rule judged per resource): even `up --skip-preview`, the
          // Automation API's up, stops before creating it.
          s.stack.workspace.program = typescriptProgram(dynamicSdk, CASES[1]!);
          const up = await failureOf(s.stack.up(opts));
          expect(up?.message).toMatch(/cws-allowed-resource-names/);
          expect((await liveResources(server)).workloads).toEqual([]);
        } finally {
          await s.cleanup();
        }
      },
    );
  });
});
