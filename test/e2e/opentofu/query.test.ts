/**
 * `terraform query` through terraform-provider-cws under Terraform 1.16.4, against an org of
 * every kind made by hand through the API (outside Terraform): docs/query.md run as written,
 * every block in order in one project (HCL blocks are the files their first line names, or, for
 * generated.tf, lines the generated file must hold; shell blocks its commands; output blocks
 * checked against what the command before printed). `terraform query` prints every object;
 * `-generate-config-out` writes configuration with no computed attribute, which, with the secrets
 * filled in as the page says, imports every object and then plans with no change; and
 * `cws adopt --format tofu` finds the same objects.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { runProcess } from "../../../scripts/run.ts";
import {
  ADOPT_PUBLIC_KEY,
  REGISTRY_PASSWORD,
  TEMPLATE_PASSWORD,
  VM_PASSWORD,
  clientFor,
  makeOrgByHand,
  type HandMadeOrg,
} from "../../helpers/adopt-org.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { fencedBlocks, outputLinePattern } from "../../helpers/markdown.ts";
import { useTestServer } from "../../helpers/server.ts";
import {
  TERRAFORM,
  expectExit,
  requireTool,
  toolTitle,
  tofuProject,
  words,
  type TofuProject,
  type TofuRun,
} from "../../helpers/tofu.ts";

const STEP = 300_000;
const DOC = new URL("../../../docs/query.md", import.meta.url);
const CWS = join(REPO_ROOT, "bin", "cws");

/** The uids of a file's `identity = { org = ..., uid = "..." }` import blocks. */
const importedUids = (hcl: string) =>
  [...hcl.matchAll(/identity = \{\s*org\s*= "demo"\s*uid\s*= "([^"]+)"/g)].map((m) => m[1]!).sort();

/** `cws adopt` against the server, as a user runs it. */
async function adopt(server: { baseUrl: string }, ...args: string[]) {
  const r = await runProcess(CWS, ["adopt", "--format", "tofu", ...args], {
    env: { ...process.env, CWS_BASE_URL: server.baseUrl, CWS_ORG: "demo", CWS_API_TOKEN: DEMO_TOKEN },
  });
  return r.stdout;
}

/** The resource block `type` whose `name = "<name>"` it is, in `hcl`: its start and end. */
function blockOf(hcl: string, type: string, name: string): [number, number] {
  for (const m of hcl.matchAll(new RegExp(`^resource "${type}" "\\w+" \\{$`, "gm"))) {
    const end = hcl.indexOf("\n}\n", m.index);
    const body = hcl.slice(m.index, end);
    if (new RegExp(`^  name\\s+= "${name}"$`, "m").test(body)) return [m.index, end];
  }
  throw new Error(`no ${type} named ${name} in:\n${hcl}`);
}

/** `hcl` with `edit` applied to the resource block of `type` named `name`. */
function inBlock(hcl: string, type: string, name: string, edit: (body: string) => string): string {
  const [start, end] = blockOf(hcl, type, name);
  const body = edit(hcl.slice(start, end));
  return hcl.slice(0, start) + body + hcl.slice(end);
}

/**
 * The secrets filled in as docs/query.md says: each password the variable, the template's
 * manifest as `cws adopt` writes it (its variable renamed to the page's).
 */
function fillSecrets(generated: string, adopted: string): string {
  const password = (holder: string, variable: string) => (body: string) => {
    const re = new RegExp(`(${holder} = \\{[\\s\\S]*?\\bpassword\\s+= )null # sensitive`);
    expect(body, holder).toMatch(re);
    return body.replace(re, `$1var.${variable}`);
  };
  const manifest = /^ {2}manifest\s+= jsonencode\([\s\S]*?^ {2}\}\)$/m.exec(adopted)?.[0];
  expect(manifest, "cws adopt writes the template's manifest").toBeDefined();
  const adoptVariable = /var\.(\w+)/.exec(manifest!)?.[1];
  expect(adoptVariable).toBeDefined();
  let out = inBlock(generated, "cws_workload", "web", password("registry_auth", "web_registry_password"));
  out = inBlock(out, "cws_workload", "build-vm", password("vm_config", "build_vm_password"));
  return inBlock(out, "cws_workload_template", "web-template", (body) => {
    expect(body).toMatch(/^ {2}manifest\s+= null # sensitive$/m);
    return body.replace(
      /^ {2}manifest\s+= null # sensitive$/m,
      manifest!.replace(`var.${adoptVariable}`, "var.web_template_registry_password"),
    );
  });
}

describe(`docs/query.md under ${toolTitle(TERRAFORM)}`, () => {
  const server = useTestServer({ provisionDelayMs: 10 });
  let org: HandMadeOrg;
  let p: TofuProject;
  beforeAll(async () => {
    requireTool(TERRAFORM);
    org = await makeOrgByHand(server);
  }, STEP);
  afterAll(() => p?.cleanup());

  it(
    "lists an org made outside Terraform, and generates configuration that imports every object and then plans with no change",
    async () => {
      const blocks = fencedBlocks(readFileSync(DOC, "utf8"));
      expect(blocks.map((b) => b.lang).filter((l) => !["hcl", "sh", "text"].includes(l))).toEqual([]);
      p = tofuProject(
        server,
        {},
        {
          TF_VAR_web_registry_password: REGISTRY_PASSWORD,
          TF_VAR_build_vm_password: VM_PASSWORD,
          TF_VAR_web_template_registry_password: TEMPLATE_PASSWORD,
        },
        TERRAFORM,
      );
      const file = (name: string) => readFileSync(join(p.dir, name), "utf8");
      let last: TofuRun | undefined;
      const ran: string[] = [];
      for (const b of blocks) {
        if (b.lang === "hcl") {
          const name = /^# (\S+)\n/.exec(b.text)?.[1];
          expect(name, `an HCL block names its file:\n${b.text}`).toBeDefined();
          if (name === "generated.tf") {
            // Lines the generated file holds (Terraform writes it).
            const text = file(name).replace(/\s+/g, " ");
            for (const line of b.text
              .split("\n")
              .slice(1)
              .filter((l) => l.trim()))
              expect(text, `generated.tf holds: ${line}`).toMatch(outputLinePattern(line));
            continue;
          }
          p.write(name!, b.text);
          if (name === "secrets.tf")
            p.write(
              "generated.tf",
              fillSecrets(file("generated.tf"), await adopt(server, "--type", "WorkloadTemplate")),
            );
          if (name === "main.tf") expectExit(await p.run("init"), 0);
        } else if (b.lang === "sh") {
          for (const line of b.text.trim().split("\n")) {
            const [tool, ...args] = line.split(" ");
            if (tool === "terraform") last = expectExit(await p.run(...args), 0);
            else await runProcess("sh", ["-c", line], { cwd: p.dir });
            ran.push(line);
          }
        } else {
          expect(last, "an output block follows a command").toBeDefined();
          const output = words(last!);
          for (const line of b.text.trim().split("\n"))
            expect(output, `${last!.command} prints: ${line}`).toMatch(outputLinePattern(line));
        }
      }
      expect(ran).toEqual([
        "terraform query",
        "rm suspended.tfquery.hcl",
        "terraform query -generate-config-out=generated.tf",
        "terraform apply -auto-approve",
        "terraform plan",
      ]);

      // Every object of the org was imported, the deleted workload and the platform's templates
      // not; `cws adopt` finds the same objects.
      const generated = file("generated.tf");
      const live = [
        org.key,
        org.volume,
        org.web,
        org.batch,
        org.vm,
        org.bm,
        org.dev,
        org.fork,
        org.fromTemplate,
        org.template,
        org.workloadTemplate,
      ].sort();
      expect(importedUids(generated)).toEqual(live);
      expect(importedUids(await adopt(server))).toEqual(live);
      // What the service computes is never written (the import blocks' `uid` aside).
      const resources = generated.replace(/^import \{[\s\S]*?^\}$/gm, "");
      for (const computed of ["id", "status", "created_at", "updated_at", "cost_per_hour", "revision"])
        expect(resources, computed).not.toMatch(new RegExp(`^\\s+${computed}\\s+=`, "m"));
      expect(resources).not.toMatch(/^ {2}uid\s+=/m);
      // The plan is clean by its exit code too, and no password is printed or written.
      expectExit(await p.run("plan", "-detailed-exitcode"), 0);
      for (const secret of [REGISTRY_PASSWORD, VM_PASSWORD, TEMPLATE_PASSWORD]) {
        expect(last!.output).not.toContain(secret);
        expect(generated).not.toContain(secret);
      }
    },
    STEP * 2,
  );
});

describe(`a bad filter and a limit, under ${toolTitle(TERRAFORM)}`, () => {
  const server = useTestServer({ provisionDelayMs: 10 });

  it(
    "refuses a filter the API does not take before listing, naming it and its values; stops at the limit; gives objects whole with include_resource",
    async () => {
      requireTool(TERRAFORM);
      const keys = ["a", "b", "c"];
      const client = clientFor(server);
      for (const name of keys)
        await client.sshKeys.create({ name, ssh_key: `${ADOPT_PUBLIC_KEY.split(" adopt")[0]} ${name}@cws` });
      const main = `terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}\n\nprovider "cws" {}\n`;
      const p = tofuProject(
        server,
        {
          "main.tf": main,
          "bad.tfquery.hcl": `list "cws_workload" "sandboxes" {\n  provider = cws\n  config {\n    type = "SANDBOX"\n  }\n}\n`,
        },
        {},
        TERRAFORM,
      );
      try {
        expectExit(await p.run("init"), 0);
        const bad = expectExit(await p.run("query"), 1);
        expect(words(bad)).toMatch(/Invalid filter: type/);
        expect(words(bad)).toMatch(/type must be one of RENTAL, VM, BM/);
        expect(words(bad)).toMatch(/on bad\.tfquery\.hcl line 4/);
        p.write("bad.tfquery.hcl", `list "cws_ssh_key" "two" {\n  provider = cws\n  limit    = 2\n}\n`);
        const two = expectExit(await p.run("query"), 0);
        expect(two.stdout.match(/^list\.cws_ssh_key\.two /gm)).toHaveLength(2);
        // include_resource: each object whole, which `query -json` prints.
        p.write(
          "bad.tfquery.hcl",
          `list "cws_ssh_key" "all" {\n  provider         = cws\n  include_resource = true\n}\n`,
        );
        const found = expectExit(await p.run("query", "-json"), 0)
          .stdout.split("\n")
          .filter((l) => l.includes('"list_resource_found"'))
          .map(
            (l) =>
              (
                JSON.parse(l) as {
                  list_resource_found: {
                    identity: { uid: string };
                    resource_object: { name: string; uid: string };
                  };
                }
              ).list_resource_found,
          );
        expect(found.map((f) => f.resource_object.name).sort()).toEqual(keys);
        for (const f of found) expect(f.resource_object.uid).toBe(f.identity.uid);
      } finally {
        p.cleanup();
      }
    },
    STEP,
  );
});
