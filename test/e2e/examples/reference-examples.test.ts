/**
 * The examples of the generated reference pages (docs/resources/<kind>.md) run: the YAML text of
 * every page through `pulumi up` in a YAML project, the Python text through Python's Automation
 * API, the Go text built with Go's Automation API, and the TypeScript text through both front
 * ends. SandboxTemplate's example names a running sandbox of the reader's (`<sandbox uid>`): the
 * tests give it one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFINITIONS } from "../../../provider/registry.ts";
import { fileOf } from "../../../scripts/gen/sdk-classes.ts";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { GO_BUILD_ENV } from "../../../scripts/toolchain/go-build.ts";
import { VENV_PYTHON } from "../../../scripts/toolchain/languages.ts";
import { run } from "../../../scripts/run.ts";
import { api } from "../../helpers/http.ts";
import { programDir } from "../../helpers/program-dir.ts";
import { waitFor } from "../../helpers/wait.ts";
import { useTestServer } from "../../helpers/server.ts";
import { cwsStack, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";

const RUNNABLE = Object.values(DEFINITIONS);
const PAGES = RUNNABLE.map(fileOf);

/** The SandboxTemplate example publishes "<sandbox uid>": a running sandbox of the reader's. */
const SOURCE = "<sandbox uid>";

/** A page's example in `language` (the text of its fenced block). */
function example(page: string, language: string): string {
  const text = readFileSync(join(REPO_ROOT, "docs", "resources", `${page}.md`), "utf8");
  const code = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(text)?.[1] ?? "";
  return code.replace(SOURCE, sourceSandbox);
}

/** Runs the Python examples, as written, in one inline program (Python's Automation API). */
const PYTHON_RUNNER = `
import json, os, sys
import pulumi
import pulumi_cws as cws
from pulumi import automation as auto

examples = json.loads(sys.argv[1])

def program():
    for code in examples:
        exec(code, {"cws": cws, "pulumi": pulumi})

stack = auto.create_or_select_stack(stack_name="dev", project_name="python-examples", program=program)
stack.set_all_config({
    "cws:baseUrl": auto.ConfigValue(os.environ["CWS_BASE_URL"]),
    "cws:org": auto.ConfigValue(os.environ["CWS_ORG"]),
    "cws:apiToken": auto.ConfigValue(os.environ["CWS_API_TOKEN"], secret=True),
})
stack.up()
preview = stack.preview()
stack.destroy()
print(json.dumps(preview.change_summary))
`;

/** A Go program running the Go examples, as written, inline (Go's Automation API). */
function goProgram(snippets: string[]): string {
  const body = snippets
    .map((code) => {
      const variable = /^(\w+), err :=/.exec(code)?.[1];
      return `${code.trim()}\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t\t_ = ${variable}`;
    })
    .join("\n")
    .replace(/\n/g, "\n\t\t");
  return `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"pulumi-cws/sdk/go/cws"
)

func main() {
	ctx := context.Background()
	program := func(ctx *pulumi.Context) error {
		${body}
		return nil
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", "go-examples", program)
	if err != nil {
		panic(err)
	}
	for key, env := range map[string]string{"cws:baseUrl": "CWS_BASE_URL", "cws:org": "CWS_ORG"} {
		if err := stack.SetConfig(ctx, key, auto.ConfigValue{Value: os.Getenv(env)}); err != nil {
			panic(err)
		}
	}
	if err := stack.SetConfig(ctx, "cws:apiToken", auto.ConfigValue{Value: os.Getenv("CWS_API_TOKEN"), Secret: true}); err != nil {
		panic(err)
	}
	if _, err := stack.Up(ctx); err != nil {
		panic(err)
	}
	preview, err := stack.Preview(ctx)
	if err != nil {
		panic(err)
	}
	if _, err := stack.Destroy(ctx); err != nil {
		panic(err)
	}
	out, _ := json.Marshal(preview.ChangeSummary)
	fmt.Println(string(out))
}
`;
}

/** The resources of a page's YAML example (what follows its `resources:` line). */
function yamlExample(page: string): string {
  const block = example(page, "yaml");
  return block.slice(block.indexOf("resources:\n") + "resources:\n".length);
}

let sourceSandbox = SOURCE;

describe("the reference pages' examples", () => {
  const server = useTestServer();
  const stacks: OfflineStack[] = [];
  beforeAll(async () => {
    const box = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
      type: "SANDBOX",
      name: "source",
      image: "tpl-ubuntu-headless",
    });
    await api(server, "POST", `/orgs/demo/workloads/${box.uid}/deploy`);
    await waitFor(
      async () =>
        (await api<{ state: { status: string } }>(server, "GET", `/orgs/demo/workloads/${box.uid}`)).state
          .status === "running",
      "the source sandbox to run",
    );
    sourceSandbox = box.uid;
  });
  afterAll(async () => {
    for (const s of stacks) await s.cleanup();
  });
  /** After destroy: nothing the examples made is left, only the tests' own source sandbox. */
  const expectOnlyTheSourceLeft = async () => {
    const live = await liveResources(server);
    expect([...live.volumes, ...live.ssh_keys, ...live.templates, ...live.sandbox_templates]).toEqual([]);
    expect(live.workloads.map((w) => w.name)).toEqual(["source"]);
  };

  it(
    "YAML: every page's example, as written, goes up, previews no changes and is destroyed",
    { timeout: 300_000 },
    async () => {
      const source = mkdtempSync(join(tmpdir(), "cws-examples-"));
      writeFileSync(
        join(source, "Pulumi.yaml"),
        `name: reference-examples\nruntime: yaml\nresources:\n${PAGES.map(yamlExample).join("")}`,
      );
      const p = programDir("reference-examples", source, server);
      const pulumi = (...args: string[]) =>
        run("pulumi", [...args, "--non-interactive"], { cwd: p.project, env: p.env });
      try {
        await pulumi("stack", "init", "dev");
        await pulumi("up", "--yes", "--skip-preview");
        const made = await liveResources(server);
        // Workload and Sandbox are both workloads on the service ("source" is the tests' own).
        expect(made.workloads.map((w) => w.name).sort()).toEqual(["dev", "source", "web"]);
        expect(
          [made.volumes, made.ssh_keys, made.templates, made.sandbox_templates].map((l) => l.length),
        ).toEqual([1, 1, 1, 1]);
        await pulumi("preview", "--expect-no-changes");
        await pulumi("destroy", "--yes", "--skip-preview");
        await expectOnlyTheSourceLeft();
      } finally {
        p.cleanup();
        rmSync(source, { recursive: true, force: true });
      }
    },
  );

  it(
    "Python: every page's example, as written, goes up, previews no changes and is destroyed",
    { timeout: 300_000 },
    async () => {
      const source = mkdtempSync(join(tmpdir(), "cws-py-examples-"));
      writeFileSync(join(source, "run.py"), PYTHON_RUNNER);
      const p = programDir("python-examples", source, server);
      try {
        const code = PAGES.map((page) => example(page, "python"));
        expect(code.join("\n")).toContain('resource_name_="gpu-rental-small"');
        const out = await run(VENV_PYTHON, ["run.py", JSON.stringify(code)], { cwd: p.project, env: p.env });
        // Every resource the examples make, and the stack, are unchanged at the preview after up.
        expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ same: PAGES.length + 1 });
        await expectOnlyTheSourceLeft();
      } finally {
        p.cleanup();
        rmSync(source, { recursive: true, force: true });
      }
    },
  );

  it(
    "Go: every page's example, as written, builds, goes up, previews no changes and is destroyed",
    { timeout: 600_000 },
    async () => {
      // Built beside examples/go-vm, whose go.mod points at the generated SDK (sdk/go).
      const dir = mkdtempSync(join(REPO_ROOT, "examples", ".go-examples-"));
      const source = mkdtempSync(join(tmpdir(), "cws-go-examples-"));
      const p = programDir("go-examples", source, server);
      try {
        const mod = readFileSync(join(REPO_ROOT, "examples", "go-vm", "go.mod"), "utf8");
        writeFileSync(
          join(dir, "go.mod"),
          mod.replace("module pulumi-cws/examples/go-vm", "module pulumi-cws/examples/go-examples"),
        );
        writeFileSync(join(dir, "go.sum"), readFileSync(join(REPO_ROOT, "examples", "go-vm", "go.sum")));
        writeFileSync(join(dir, "main.go"), goProgram(PAGES.map((page) => example(page, "go"))));
        const binary = join(p.project, "go-examples");
        await run("go", ["build", "-o", binary, "."], { cwd: dir, env: { ...process.env, ...GO_BUILD_ENV } });
        const out = await run(binary, [], { cwd: p.project, env: p.env });
        expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ same: PAGES.length + 1 });
        await expectOnlyTheSourceLeft();
      } finally {
        p.cleanup();
        rmSync(dir, { recursive: true, force: true });
        rmSync(source, { recursive: true, force: true });
      }
    },
  );

  it.each(FRONT_ENDS)(
    "TypeScript ($name): every page's example, as written, goes up, previews no changes and is destroyed",
    async (fe) => {
      const s = await cwsStack(
        server,
        `reference-examples-${fe.name}`,
        async () => {
          for (const d of RUNNABLE) {
            // The example is plain JavaScript once its import line (the front end's module) is gone.
            const code = example(fileOf(d), "typescript").replace(/^import .*\n/m, "");
            new Function(d.name, code)(fe.sdk[d.name as keyof typeof fe.sdk]);
          }
          return {};
        },
        {},
        fe.env,
      );
      stacks.push(s);
      await s.stack.up();
      const live = await liveResources(server);
      expect(live.workloads.map((w) => w.name).sort()).toEqual(["dev", "source", "web"]);
      expect((await s.stack.preview()).changeSummary).toEqual({ same: RUNNABLE.length + 1 });
      await s.stack.destroy();
      await expectOnlyTheSourceLeft();
    },
  );
});
