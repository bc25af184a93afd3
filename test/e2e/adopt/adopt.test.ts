/**
 * Adopting an org made by hand, as docs/adopt.md tells a user to, with the real tools. Every kind
 * is there (attachments, suspended, VM and registry passwords, BM with a region, a sandbox, its
 * fork, a template published from it and a frozen sandbox made from that, a workload template).
 *
 * - Pulumi: `cws adopt --format pulumi`, `pulumi import --file` in a YAML project with the code
 *   the CLI generates, the secrets supplied as the adopt command says, preview with no changes,
 *   an env change updates in place, destroy leaves the org empty.
 * - OpenTofu and Terraform, each: `cws adopt --format tofu`, one `apply` imports everything
 *   (nothing added or destroyed; nothing changed on the service, though Terraform counts two
 *   updates of what it records as sensitive), `plan -detailed-exitcode` exits 0, destroy leaves
 *   the org empty.
 *
 * Adopting itself creates and deletes nothing on the service.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import {
  REGISTRY_PASSWORD,
  TEMPLATE_PASSWORD,
  VM_PASSWORD,
  makeOrgByHand,
  type HandMadeOrg,
} from "../../helpers/adopt-org.ts";
import { api } from "../../helpers/http.ts";
import { run } from "../../../scripts/run.ts";
import { filesContaining, programDir, type ProgramDir } from "../../helpers/program-dir.ts";
import { useTestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, liveResources } from "../../helpers/stacks.ts";
import {
  HCL_TOOLS,
  expectExit,
  toolTitle,
  requireTool,
  tofuProject,
  type TofuProject,
} from "../../helpers/tofu.ts";

const CWS = join(REPO_ROOT, "bin", "cws");
const PROJECT = fileURLToPath(new URL("./fixtures/yaml-project", import.meta.url));
const STEP = 300_000;

/** The password the hand-made org used for each secret `cws adopt` names. */
const PASSWORDS: Record<string, string> = {
  "Workload web registryAuth.password": REGISTRY_PASSWORD,
  "Workload build-vm vmConfig.password": VM_PASSWORD,
  "WorkloadTemplate web-template manifest.registryAuth.password": TEMPLATE_PASSWORD,
};

/** Each secret line of `cws adopt`'s stderr: who, which input, and the config key or variable to set. */
function secretsOf(stderr: string, format: "pulumi" | "tofu") {
  const re =
    format === "pulumi"
      ? /cws adopt: (\w+) (\S+) \(\S+\): (\S+) is never returned.*pulumi config set --secret (\w+) <value>/g
      : /cws adopt: (\w+) (\S+) \(\S+\): (\S+) is never returned.*OpenTofu variable (\w+) /g;
  return [...stderr.matchAll(re)].map(([, kind, name, property, key]) => {
    const password = PASSWORDS[`${kind} ${name} ${property}`];
    if (!password) throw new Error(`unexpected secret ${kind} ${name} ${property}`);
    return { kind: kind!, name: name!, property: property!, key: key!, password };
  });
}

/**
 * A generated YAML program with `path` (dotted) of resource `resource` set to `value`, as a user
 * edits it: the line replaced, or added under its parent when the CLI did not write it.
 */
function setProperty(yaml: string, resource: string, path: string, value: string): string {
  const lines = yaml.split("\n");
  const end = (from: number, indent: number) => {
    let to = from + 1;
    while (to < lines.length && (!lines[to]!.trim() || lines[to]!.search(/\S/) > indent)) to++;
    return to;
  };
  let at = lines.indexOf(`  ${resource}:`);
  if (at < 0) throw new Error(`no resource ${resource} in the generated program`);
  let indent = 2;
  const segments = ["properties", ...path.split(".")];
  for (const [i, seg] of segments.entries()) {
    const pad = " ".repeat(indent + 2);
    const found = lines
      .slice(at + 1, end(at, indent))
      .findIndex((l) => l === `${pad}${seg}:` || l.startsWith(`${pad}${seg}: `));
    if (found < 0) {
      if (i < segments.length - 1) throw new Error(`no ${segments.slice(0, i + 1).join(".")} in ${resource}`);
      lines.splice(at + 1, 0, `${pad}${seg}: ${value}`);
      return lines.join("\n");
    }
    at += 1 + found;
    indent += 2;
  }
  lines[at] = `${" ".repeat(indent)}${segments[segments.length - 1]}: ${value}`;
  return lines.join("\n");
}

describe("adopting an org with Pulumi: cws adopt, pulumi import into a YAML project", () => {
  const server = useTestServer();
  let org: HandMadeOrg;
  let p: ProgramDir;
  const pulumi = (...args: string[]) =>
    run("pulumi", [...args, "--non-interactive"], { cwd: p.project, env: p.env });
  const main = () => join(p.project, "Main.yaml");

  beforeAll(async () => {
    org = await makeOrgByHand(server);
    p = programDir("adopt-yaml", PROJECT, server);
  }, STEP);
  afterAll(() => p?.cleanup());

  it(
    "imports everything with the code the CLI generates; with the secrets supplied, preview has no changes",
    async () => {
      const before = await liveResources(server);
      const adopted = await run(CWS, ["adopt", "--format", "pulumi", "--out", "import.json"], {
        cwd: p.project,
        env: p.env,
      });
      expect(adopted).toMatch(/11 objects of org 'demo'/);
      expect(await liveResources(server)).toEqual(before);

      await pulumi("stack", "init", "dev");
      await pulumi("config", "set", "cws:baseUrl", server.baseUrl);
      await pulumi("config", "set", "cws:org", "demo");
      await pulumi("config", "set", "--secret", "cws:apiToken", "demo-token");
      const imported = await pulumi(
        "import",
        "--file",
        "import.json",
        "--yes",
        "--protect=false",
        "--out",
        "generated.yaml",
      );
      expect(imported).toMatch(/11 imported/);
      expect(imported).not.toMatch(/failed to validate/);
      // The YAML host reads Main.yaml when there is one (an empty one while importing would fail).
      renameSync(join(p.project, "generated.yaml"), main());

      // References instead of uids, where the engine guessed them.
      let yaml = readFileSync(main(), "utf8");
      expect(yaml).toContain("uid: ${volumeData.id}");
      expect(yaml).toContain("- ${sshKeyDeploy.id}");
      expect(yaml).toContain("forkFrom: ${sandboxDev.id}");
      expect(yaml).toContain("template: ${sandboxTemplateTeamEnv.id}");
      for (const uid of [org.key, org.volume, org.dev, org.template]) expect(yaml).not.toContain(uid);
      expect(yaml).toMatch(/workloadBatch:[\s\S]*?suspended: true/);
      expect(yaml).toMatch(/sandboxReview:[\s\S]*?frozen: true/);
      expect(yaml).toMatch(/workloadTrain:[\s\S]*?region: us-east-1/);

      // The secrets, as the adopt command said: a config secret each, used in the program.
      const secrets = secretsOf(adopted, "pulumi");
      expect(secrets.map((s) => s.key).sort()).toEqual([
        "workloadBuildVmVmPassword",
        "workloadTemplateWebTemplateRegistryPassword",
        "workloadWebRegistryPassword",
      ]);
      const names = JSON.parse(readFileSync(join(p.project, "import.json"), "utf8")) as {
        resources: { name: string; id: string }[];
      };
      for (const s of secrets) {
        await pulumi("config", "set", "--secret", s.key, s.password);
        const resource = names.resources.find((r) => r.id === uidOf(org, s.kind, s.name))!.name;
        yaml = setProperty(yaml, resource, s.property, `\${${s.key}}`);
      }
      writeFileSync(main(), yaml);

      const preview = await pulumi("preview", "--expect-no-changes", "--diff");
      expect(preview).toMatch(/12 unchanged/);
      const refresh = await pulumi("refresh", "--yes", "--skip-preview");
      expect(refresh).toMatch(/12 unchanged/);
      await pulumi("preview", "--expect-no-changes");
    },
    STEP,
  );

  it(
    "an env change in the generated program updates the workload in place",
    async () => {
      writeFileSync(main(), readFileSync(main(), "utf8").replace("value: prod", "value: staging"));
      const up = await pulumi("up", "--yes", "--skip-preview");
      expect(up).toMatch(/~ 1 updated/);
      expect(up).toMatch(/11 unchanged/);
      const web = await api<{ envs: unknown; state: { status: string } }>(
        server,
        "GET",
        `/orgs/demo/workloads/${org.web}`,
      );
      expect(web.envs).toEqual([{ name: "MODE", value: "staging" }]);
      expect(web.state.status).toBe("running");
      await pulumi("preview", "--expect-no-changes");
      for (const secret of [REGISTRY_PASSWORD, VM_PASSWORD, TEMPLATE_PASSWORD])
        expect(filesContaining(p.state, secret)).toEqual([]);
    },
    STEP,
  );

  it(
    "destroy leaves the org empty",
    async () => {
      await pulumi("destroy", "--yes", "--skip-preview");
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    },
    STEP,
  );
});

/** The uid of the hand-made object of `kind` named `name`. */
function uidOf(org: HandMadeOrg, kind: string, name: string): string {
  const byName: Record<string, string> = {
    "Workload web": org.web,
    "Workload build-vm": org.vm,
    "WorkloadTemplate web-template": org.workloadTemplate,
  };
  const uid = byName[`${kind} ${name}`];
  if (!uid) throw new Error(`no hand-made ${kind} ${name}`);
  return uid;
}

const TOOLS = HCL_TOOLS.map((tool) => ({ tool, title: toolTitle(tool) }));

describe.each(TOOLS)("adopting an org with $title: cws adopt, one apply", ({ tool }) => {
  const server = useTestServer();
  let p: TofuProject;
  let vars: string[] = [];

  beforeAll(async () => {
    requireTool(tool);
    await makeOrgByHand(server);
    p = tofuProject(server, {}, {}, tool);
  }, STEP);
  afterAll(() => p?.cleanup());

  it(
    "imports everything with nothing added, changed or destroyed; the next plan is empty",
    async () => {
      const before = await liveResources(server);
      const adopted = await run(CWS, ["adopt", "--format", "tofu", "--out", "main.tf"], {
        cwd: p.dir,
        env: {
          ...process.env,
          CWS_BASE_URL: server.baseUrl,
          CWS_ORG: "demo",
          CWS_API_TOKEN: "demo-token",
        },
      });
      expect(adopted).toMatch(/11 objects of org 'demo'/);
      expect(await liveResources(server)).toEqual(before);
      const secrets = secretsOf(adopted, "tofu");
      expect(secrets.map((s) => s.key).sort()).toEqual([
        "workload_build_vm_vm_password",
        "workload_template_web_template_registry_password",
        "workload_web_registry_password",
      ]);
      vars = secrets.flatMap((s) => ["-var", `${s.key}=${s.password}`]);

      expectExit(await p.run("init"), 0);
      const apply = expectExit(await p.run("apply", "-auto-approve", ...vars), 0);
      // Nothing is updated, under either tool: not even the two workloads whose password comes
      // from a sensitive variable (Terraform 1.13 counted those as updates in place that sent
      // nothing; 1.16 no longer does).
      expect(apply.output).toMatch("Apply complete! Resources: 11 imported, 0 added, 0 changed, 0 destroyed");
      expect(apply.output).not.toMatch(/will be updated in-place/);
      expect(await liveResources(server)).toEqual(before);
      const plan = expectExit(await p.run("plan", "-detailed-exitcode", ...vars), 0);
      expect(plan.output).toMatch(/No changes/);
      const state = readFileSync(join(p.dir, "terraform.tfstate"), "utf8");
      for (const secret of [REGISTRY_PASSWORD, VM_PASSWORD, TEMPLATE_PASSWORD])
        expect(state).not.toContain(secret);
    },
    STEP,
  );

  it(
    "destroy leaves the org empty",
    async () => {
      const r = expectExit(await p.run("destroy", "-auto-approve", ...vars), 0);
      expect(r.output).toMatch(/Destroy complete! Resources: 11 destroyed/);
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
    },
    STEP,
  );
});
