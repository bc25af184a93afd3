/**
 * `cws adopt` against the reference server, in-process: an org made by hand through the API is
 * written as a `pulumi import` file and as OpenTofu blocks, every kind with references between
 * them and the secrets named on stderr; the platform's objects and deleted ones are left out;
 * the filters select; the same org gives the same file; nothing on the service changes; bad
 * input names the flag and the token is never shown.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adoptCommand } from "../../../cli/cws-command.ts";
import type { ImportFile } from "../../../provider/adopt/pulumi.ts";
import { makeOrgByHand, type HandMadeOrg } from "../../helpers/adopt-org.ts";
import { api, DEMO_TOKEN } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";

const BIN = fileURLToPath(new URL("../../../bin/cws", import.meta.url));

describe("cws adopt", () => {
  const server = useTestServer();
  let org: HandMadeOrg;
  let dir: string;
  const env = (more: Record<string, string | undefined> = {}) => ({
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: DEMO_TOKEN,
    ...more,
  });
  const adopt = async (args: string[], more: Record<string, string | undefined> = {}) => {
    let stdout = "";
    let stderr = "";
    const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
    const code = await adoptCommand(args, io, env(more));
    return { code, stdout, stderr };
  };
  const pulumiFile = async (...args: string[]) => {
    const r = await adopt(["--format", "pulumi", ...args]);
    expect(r.code, r.stderr).toBe(0);
    return { ...r, file: JSON.parse(r.stdout) as ImportFile };
  };

  beforeAll(async () => {
    org = await makeOrgByHand(server);
    dir = mkdtempSync(join(tmpdir(), "cws-adopt-"));
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("writes every object for pulumi import, named for every language, after the objects it refers to", async () => {
    const { file, stderr } = await pulumiFile();
    expect(file.resources).toEqual([
      { type: "cws:index:SshKey", name: "sshKeyDeploy", id: org.key },
      { type: "cws:index:Volume", name: "volumeData", id: org.volume },
      { type: "cws:index:Sandbox", name: "sandboxDev", id: org.dev },
      { type: "cws:index:Sandbox", name: "sandboxDevCopy", id: org.fork },
      { type: "cws:index:SandboxTemplate", name: "sandboxTemplateTeamEnv", id: org.template },
      { type: "cws:index:Sandbox", name: "sandboxReview", id: org.fromTemplate },
      { type: "cws:index:Workload", name: "workloadBatch", id: org.batch },
      { type: "cws:index:Workload", name: "workloadBuildVm", id: org.vm },
      { type: "cws:index:Workload", name: "workloadTrain", id: org.bm },
      { type: "cws:index:Workload", name: "workloadWeb", id: org.web },
      { type: "cws:index:WorkloadTemplate", name: "workloadTemplateWebTemplate", id: org.workloadTemplate },
    ]);
    // Neither the platform's FRESH templates, the PUBLIC workload template, nor the deleted workload.
    expect(JSON.stringify(file)).not.toMatch(/tpl-ubuntu|wtpl-nginx-public/);
    expect(JSON.stringify(file)).not.toContain(org.deleted);
    for (const r of file.resources) expect(r.name).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(stderr).toMatch(/11 objects of org 'demo'/);
    const lines = stderr.split("\n").filter((l) => l.includes("never returned"));
    expect(lines).toHaveLength(3);
    expect(lines.join("\n")).toContain(
      "registryAuth.password is never returned by the service; supply it as a Pulumi config secret: `pulumi config set --secret workloadWebRegistryPassword <value>`",
    );
    expect(lines.join("\n")).toContain("`pulumi config set --secret workloadBuildVmVmPassword <value>`");
    expect(lines.join("\n")).toContain(
      "manifest.registryAuth.password is never returned by the service; supply it as a Pulumi config secret: `pulumi config set --secret workloadTemplateWebTemplateRegistryPassword <value>`",
    );
  });

  it("writes OpenTofu import and resource blocks with references, and a sensitive variable per secret", async () => {
    const r = await adopt(["--format", "tofu"]);
    expect(r.code, r.stderr).toBe(0);
    const hcl = r.stdout;
    expect(hcl.match(/^import \{/gm)).toHaveLength(11);
    expect(hcl.match(/^resource "cws_/gm)).toHaveLength(11);
    expect(hcl).toContain(
      `import {\n  to = cws_workload.web\n  identity = {\n    org = "demo"\n    uid = "${org.web}"\n  }\n}`,
    );
    expect(hcl).toContain(
      '  volumes = [\n    {\n      uid        = cws_volume.data.uid\n      mount_path = "/data"\n      read_only  = false\n    },\n  ]',
    );
    expect(hcl).toContain("  ssh_keys = [cws_ssh_key.deploy.uid]");
    expect(hcl).toContain("  fork_from = cws_sandbox.dev.uid");
    expect(hcl).toContain("  template = cws_sandbox_template.team_env.uid");
    expect(hcl).toContain('  region        = "us-east-1"');
    expect(hcl).toContain("  suspended     = true");
    expect(hcl).toContain("  frozen   = true");
    expect(hcl).toContain("    password = var.workload_web_registry_password");
    expect(hcl).toContain("  vm_config = {\n    password = var.workload_build_vm_vm_password\n  }");
    expect(hcl).toContain("      password = var.workload_template_web_template_registry_password");
    expect(hcl).toContain(
      'variable "workload_web_registry_password" {\n  description = "registryAuth.password of Workload web',
    );
    expect(hcl.match(/ {2}sensitive {3}= true/g)).toHaveLength(3);
    // A RENTAL workload has no VM settings at all; the sandbox template has no source to name.
    const web = hcl.slice(hcl.indexOf('resource "cws_workload" "web"'));
    expect(web.slice(0, web.indexOf("\n}\n"))).not.toContain("vm_config");
    expect(hcl).not.toContain("source_sandbox");
    expect(r.stderr).toMatch(
      /registryAuth\.password is never returned by the service; supply it as the OpenTofu variable workload_web_registry_password \(TF_VAR_workload_web_registry_password=<value>/,
    );
  });

  it("imports by id with --import-by id, for OpenTofu and Terraform before 1.12", async () => {
    const r = await adopt(["--format", "tofu", "--import-by", "id"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`import {\n  to = cws_workload.web\n  id = "${org.web}"\n}`);
    expect(r.stdout).not.toContain("identity =");
  });

  it("gives the same file for the same org and changes nothing on the service", async () => {
    const before = await liveResources(server);
    const records = await Promise.all(
      [org.web, org.batch, org.vm, org.bm, org.dev, org.fork, org.fromTemplate].map((uid) =>
        api<{ updated_at: string; state: { status: string } }>(server, "GET", `/orgs/demo/workloads/${uid}`),
      ),
    );
    const first = await adopt(["--format", "tofu"]);
    const second = await adopt(["--format", "tofu"]);
    expect(second.stdout).toBe(first.stdout);
    expect((await adopt(["--format", "pulumi"])).stdout).toBe((await adopt(["--format", "pulumi"])).stdout);
    expect(await liveResources(server)).toEqual(before);
    const after = await Promise.all(
      [org.web, org.batch, org.vm, org.bm, org.dev, org.fork, org.fromTemplate].map((uid) =>
        api<{ updated_at: string; state: { status: string } }>(server, "GET", `/orgs/demo/workloads/${uid}`),
      ),
    );
    expect(after.map((w) => [w.updated_at, w.state.status])).toEqual(
      records.map((w) => [w.updated_at, w.state.status]),
    );
  });

  it("selects by --type, --name and --project", async () => {
    const names = async (...args: string[]) => (await pulumiFile(...args)).file.resources.map((r) => r.name);
    expect(await names("--type", "Volume", "--type", "cws_ssh_key")).toEqual(["sshKeyDeploy", "volumeData"]);
    expect(await names("--type", "workload,sandbox-template")).toEqual([
      "sandboxTemplateTeamEnv",
      "workloadBatch",
      "workloadBuildVm",
      "workloadTrain",
      "workloadWeb",
    ]);
    expect(await names("--name", "dev*")).toEqual(["sandboxDev", "sandboxDevCopy"]);
    expect(await names("--name", "b?ild-*")).toEqual(["workloadBuildVm"]);
    // The project's workloads, with the volume and key they use (which belong to no project).
    expect(await names("--project", "proj-shop")).toEqual(["sshKeyDeploy", "volumeData", "workloadWeb"]);
    expect(await names("--project", "none-such")).toEqual([]);
    // A reference to an object left out stays a uid.
    const tofu = await adopt(["--format", "tofu", "--type", "Workload", "--name", "web"]);
    expect(tofu.stdout).toContain(`uid        = "${org.volume}"`);
  });

  it("writes to --out, and the installed command does the same", async () => {
    const out = join(dir, "import.json");
    const r = await adopt(["--format", "pulumi", "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`written to ${out}`);
    const viaBin = await promisify(execFile)(BIN, ["adopt", "--format", "pulumi"], {
      env: { ...process.env, ...env() },
    });
    expect(viaBin.stdout).toBe(readFileSync(out, "utf8"));
  });

  it("refuses bad input naming the flag and the rule, and never shows the token", async () => {
    const usage = async (args: string[], more: Record<string, string | undefined>, message: string) => {
      const r = await adopt(args, more);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(message);
    };
    await usage([], {}, "--format is required: pulumi or tofu");
    await usage(["--format", "terraform"], {}, "--format must be pulumi or tofu (got 'terraform')");
    await usage(["--format", "tofu", "--type", "bucket"], {}, "--type must be one of SshKey, Volume");
    await usage(["--format", "tofu", "--name", ""], {}, "--name must be a glob");
    await usage(["--format", "tofu", "--token", DEMO_TOKEN], {}, "read from CWS_API_TOKEN only");
    await usage(
      ["--format", "tofu"],
      { CWS_API_TOKEN: undefined },
      "the API token is missing: set CWS_API_TOKEN",
    );
    await usage(["--format", "tofu"], { CWS_ORG: undefined }, "the org is missing: set CWS_ORG or --org");
    await usage(["--format", "tofu"], { CWS_BASE_URL: undefined }, "set CWS_BASE_URL or --url");
    await usage(
      ["--format", "tofu", "--url", "ftp://x/v3"],
      {},
      "--url must be an http(s) URL including /v3",
    );
    await usage(["--format", "tofu", "--frobnicate"], {}, "Unknown option '--frobnicate'");
    await usage(["--format", "tofu", "--import-by", "name"], {}, "--import-by must be identity or id");
    await usage(["--format", "pulumi", "--import-by", "id"], {}, "--import-by goes with --format tofu");

    const secret = "tok-never-printed-5d1e";
    const refused = await adopt(["--format", "tofu"], { CWS_API_TOKEN: secret });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /the service refused the token for org 'demo'.*check CWS_API_TOKEN and --org/,
    );
    expect(refused.stdout + refused.stderr).not.toContain(secret);
    const other = await adopt(["--format", "tofu", "--org", "nope"]);
    expect(other.code).toBe(1);
    expect(other.stdout + other.stderr).not.toContain(DEMO_TOKEN);
  });

  it("answers --help", async () => {
    const r = await adopt(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: cws adopt --format pulumi\|tofu/);
  });
});
