/**
 * `cws policy check` over real OpenTofu 1.12.6 and Terraform 1.16.3 plans (`plan -out`, `show
 * -json`), with the one guardrails file of the pack's suite: every case of cases.ts planned in one
 * project per tool; a mandatory violation exits 1 naming the rule and the resource address, an
 * advisory one warns and exits 0, a plan within the limits passes silently; nothing is created. A
 * replace of a GPU workload counts once, the workload kept counts at its recorded cost; a file with
 * a mistake exits 2 naming the field.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { runProcess } from "../../../scripts/run.ts";
import { useTestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";
import {
  HCL_TOOLS,
  expectExit,
  requireTool,
  toolTitle,
  tofuProject,
  type HclTool,
  type TofuProject,
} from "../../helpers/tofu.ts";
import { CASES, hcl, type GuardrailCase } from "./cases.ts";

const CWS = join(REPO_ROOT, "bin", "cws");
const FIXTURES = join(REPO_ROOT, "test", "fixtures", "guardrails");
const RUN_MS = 600_000;

/** Each `error:` / `warning:` line of the check: its rule and the resource it names. */
function judged(stderr: string, what: "error" | "warning"): string[] {
  const re = new RegExp(
    `^${what}: (cws-[\\w-]+) \\((?:mandatory|advisory)\\): (?:cws_\\w+\\.(\\w+):|stack )`,
    "gm",
  );
  return [...stderr.matchAll(re)].map(([, rule, key]) => `${rule} ${key ?? "(stack)"}`).sort();
}
const expected = (l: GuardrailCase["mandatory"]) => l.map(([r, k]) => `${r} ${k ?? "(stack)"}`).sort();

describe.each(HCL_TOOLS)("cws policy check over $product plans", (tool: HclTool) => {
  const server = useTestServer({ each: "reset" });
  let p: TofuProject;
  beforeAll(() => requireTool(tool));
  afterAll(() => p?.cleanup());

  /** Plans the project as it is and checks the plan; the check's run. */
  async function planAndCheck(config = join(FIXTURES, "guardrails.json")) {
    expectExit(await p.run("plan", "-out", "plan.bin"), 0);
    const shown = expectExit(await p.run("show", "-json", "plan.bin"), 0);
    p.write("plan.json", shown.stdout);
    return runProcess(CWS, ["policy", "check", join(p.dir, "plan.json"), "--config", config], {
      cwd: p.dir,
      allowFailure: true,
    });
  }

  it(`${toolTitle(tool)}: judges every case before anything is created`, { timeout: RUN_MS }, async () => {
    p = tofuProject(server, { "main.tf": hcl(CASES[0]!) }, {}, tool);
    expectExit(await p.run("init"), 0);
    for (const c of CASES) {
      p.write("main.tf", hcl(c));
      const check = await planAndCheck();
      const where = `${c.name}:\n${check.stderr}`;
      expect(check.code, where).toBe(c.mandatory.length ? 1 : 0);
      expect(judged(check.stderr, "error"), where).toEqual(expected(c.mandatory));
      expect(judged(check.stderr, "warning"), where).toEqual(expected(c.advisory));
      if (!c.mandatory.length && !c.advisory.length) expect(check.output, where).toBe("");
    }
    expect((await liveResources(server)).workloads).toEqual([]);

    const bad = await planAndCheck(join(FIXTURES, "mistake.yaml"));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cws-gpus-per-stack\.max: Invalid input: expected number, received string/);
  });

  it(
    `${toolTitle(tool)}: a replace counts once, a kept workload at its recorded cost`,
    { timeout: RUN_MS },
    async () => {
      // Applied: a medium (2 GPUs) and a small (1 GPU) rental; then the small one is replaced by a
      // medium: 4 GPUs after the apply (the limit), not 5.
      const workload = (key: string, size: string) =>
        `resource "cws_workload" "${key}" {\n  type = "RENTAL"\n  name = "${key}"\n  image = "nginx:1.27"\n  resource_name = "gpu-rental-${size}"\n  project_id = "ml"\n}\n`;
      const head = `terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}\n`;
      p.write("main.tf", head + workload("a", "medium") + workload("b", "small"));
      expectExit(await p.run("apply", "-auto-approve"), 0);
      p.write("main.tf", head + workload("a", "medium") + workload("b", "medium"));
      const check = await planAndCheck();
      expect(check.code, check.output).toBe(0);
      const plan = JSON.parse(readFileSync(join(p.dir, "plan.json"), "utf8")) as {
        resource_changes: { address: string; change: { actions: string[] } }[];
      };
      expect(plan.resource_changes.map((r) => [r.address, r.change.actions.join(",")])).toEqual([
        ["cws_workload.a", "no-op"],
        ["cws_workload.b", "delete,create"],
      ]);
      expectExit(await p.run("destroy", "-auto-approve"), 0);
    },
  );
});
