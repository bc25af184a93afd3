/**
 * The OpenTofu front end as an HCL user meets it, under each HCL tool (OpenTofu and Terraform, as
 * setup builds them): the real CLI runs the examples/opentofu-basic project against the embedded
 * server, with terraform-provider-cws installed from a local filesystem mirror by `init`. Bad
 * input fails at plan naming the attribute, apply makes every kind, the plan says when a change
 * redeploys or replaces, drift made behind its back shows in the plan, objects made on the server
 * are imported, and destroy leaves the org empty. The HCL of docs/opentofu.md validates under
 * both.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../../../scripts/run.ts";
import { OLDEST_TOFU_VERSION } from "../../../scripts/toolchain/tofu.ts";
import { api } from "../../helpers/http.ts";
import { markdownTable } from "../../helpers/markdown.ts";
import { useTestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, liveResources } from "../../helpers/stacks.ts";
import {
  HCL_TOOLS,
  UNDER_NEXT,
  expectExit,
  expectValidConfig,
  requireTool,
  toolTitle,
  tofuProject,
  type TofuProject,
} from "../../helpers/tofu.ts";

const EXAMPLE = fileURLToPath(new URL("../../../examples/opentofu-basic", import.meta.url));
const DOC = fileURLToPath(new URL("../../../docs/opentofu.md", import.meta.url));

/** -1, 0 or 1 as release `a` is before, the same as or after `b` (`1.12.6`, `1.11`). */
function compareReleases(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < Math.max(x!.length, y!.length); i++) {
    const d = (x![i] ?? 0) - (y![i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}
const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx made@server";
const STEP = 300_000;

interface WorkloadView {
  uid: string;
  name: string;
  image: string;
  envs: { name: string; value: string }[];
  state: { status: string };
}

describe.each(HCL_TOOLS.map((tool) => ({ tool, title: toolTitle(tool) })))("$title", ({ tool }) => {
  describe("examples/opentofu-basic through terraform-provider-cws", () => {
    const server = useTestServer();
    let p: TofuProject;
    const workload = async (name: string) => {
      const w = (await liveResources(server)).workloads.find((x) => x.name === name);
      if (!w) throw new Error(`no workload ${name} on the server`);
      return api<WorkloadView>(server, "GET", `/orgs/demo/workloads/${w.uid}`);
    };

    beforeAll(async () => {
      requireTool(tool);
      p = tofuProject(server, EXAMPLE, {}, tool);
    });
    afterAll(() => {
      p?.cleanup();
    });

    it(
      "initialises offline from the provider mirror",
      async () => {
        const r = expectExit(await p.run("init"), 0);
        expect(r.output).toMatch(/Installing cws\/cws v\d+\.\d+\.\d+/);
        // Each tool records the provider under its own registry's address (same h1: hash), so a
        // lock file made by one is not the other's.
        const lock = readFileSync(join(p.dir, ".terraform.lock.hcl"), "utf8");
        expect(lock).toContain(`maintained automatically by "${tool.command} init"`);
        expect(lock).toContain(
          `provider "${tool.name === "opentofu" ? "registry.opentofu.org" : "registry.terraform.io"}/cws/cws"`,
        );
        expect(lock).toMatch(/hashes = \[\n\s+"h1:[^"]+",\n\s+\]/);
      },
      STEP,
    );

    it(
      "fails at plan on bad input, naming the attribute, and creates nothing",
      async () => {
        p.write("bad_override.tf", `resource "cws_workload" "web" {\n  ports = [{ port = 80 }]\n}\n`);
        const r = expectExit(await p.run("plan"), 1);
        expect(r.output).toMatch(/Error: Invalid value: ports\[0\]\.port/);
        expect(r.output).toMatch(/in resource "cws_workload" "web"/);
        rmSync(join(p.dir, "bad_override.tf"));
        expect(await liveResources(server)).toEqual(EMPTY_ORG);
      },
      STEP,
    );

    it(
      "applies every kind, then plans no changes",
      async () => {
        expect(expectExit(await p.run("plan"), 0).output).toMatch(
          /Plan: 7 to add, 0 to change, 0 to destroy/,
        );
        const r = expectExit(await p.run("apply", "-auto-approve"), 0);
        expect(r.output).toMatch(/Apply complete! Resources: 7 added/);
        expect(r.output).toMatch(/web_status = "running"/);
        const live = await liveResources(server);
        expect(live.workloads.map((w) => w.name).sort()).toEqual(["base", "dev-vm", "web"]);
        expect(live.volumes.map((v) => v.name)).toEqual(["web-data"]);
        expect(live.ssh_keys.map((k) => k.name)).toEqual(["ops"]);
        expect(live.templates.map((t) => t.name)).toEqual(["web-service"]);
        expect(live.sandbox_templates.map((t) => t.name)).toEqual(["golden-image"]);
        expect((await workload("web")).state.status).toBe("running");
        expect(expectExit(await p.run("plan", "-detailed-exitcode"), 0).output).toMatch(/No changes/);
      },
      STEP,
    );

    it(
      "says in the plan when a change redeploys, applies it, and when one replaces",
      async () => {
        const plan = expectExit(await p.run("plan", "-var", "image=nginx:1.28"), 0);
        expect(plan.output).toMatch(
          /Warning: image changes: the service redeploys cws_workload "web" \(restart\)/,
        );
        expect(plan.output).toMatch(/Plan: 0 to add, 1 to change, 0 to destroy/);
        expectExit(await p.run("apply", "-auto-approve", "-var", "image=nginx:1.28"), 0);
        expect((await workload("web")).image).toBe("nginx:1.28");
        expect(expectExit(await p.run("plan", "-var", "image=nginx:1.28"), 0).output).toMatch(/No changes/);

        const replace = expectExit(
          await p.run("plan", "-var", "image=nginx:1.28", "-var", "vm_password=another-9c2e"),
          0,
        );
        expect(replace.output).toMatch(/# cws_workload\.dev_vm must be replaced/);
        expect(replace.output).toMatch(/Plan: 1 to add, 0 to change, 1 to destroy/);
        expect(replace.output).not.toMatch(/another-9c2e/);
      },
      STEP,
    );

    it(
      "finds drift made behind its back and puts it back",
      async () => {
        const web = await workload("web");
        await api(server, "PATCH", `/orgs/demo/workloads/${web.uid}`, {
          envs: [{ name: "MODE", value: "debug" }],
        });
        const plan = expectExit(await p.run("plan", "-detailed-exitcode", "-var", "image=nginx:1.28"), 2);
        expect(plan.output).toMatch(/"debug" -> "prod"/);
        expectExit(await p.run("apply", "-auto-approve", "-var", "image=nginx:1.28"), 0);
        expect((await workload("web")).envs).toEqual([{ name: "MODE", value: "prod" }]);

        // Deleted behind its back: it leaves the state and the plan makes it again.
        const tpl = (await liveResources(server)).templates.find((t) => t.name === "web-service")!;
        await api(server, "DELETE", `/orgs/demo/templates/${tpl.uid}`);
        const gone = expectExit(await p.run("plan", "-var", "image=nginx:1.28"), 0);
        expect(gone.output).toMatch(/# cws_workload_template\.web will be created/);
        expect(gone.output).toMatch(/Plan: 1 to add, 0 to change, 0 to destroy/);
        expectExit(await p.run("apply", "-auto-approve", "-var", "image=nginx:1.28"), 0);
        expect((await liveResources(server)).templates.map((t) => t.name)).toEqual(["web-service"]);

        // Suspended behind its back: the plan shows it, apply deploys it again.
        await api(server, "POST", `/orgs/demo/workloads/${web.uid}/suspend`);
        const suspended = expectExit(
          await p.run("plan", "-detailed-exitcode", "-var", "image=nginx:1.28"),
          2,
        );
        expect(suspended.output).toMatch(/- suspended += true -> null/);
        expectExit(await p.run("apply", "-auto-approve", "-var", "image=nginx:1.28"), 0);
        expect((await workload("web")).state.status).toBe("running");
        expect(
          expectExit(await p.run("plan", "-detailed-exitcode", "-var", "image=nginx:1.28"), 0).output,
        ).toMatch(/No changes/);
      },
      STEP,
    );

    it(
      "imports a workload and an SSH key made on the server; the next plan has no changes",
      async () => {
        const made = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
          type: "RENTAL",
          name: "made-on-server",
          image: "nginx:1.27",
          resource_name: "gpu-rental-small",
          ports: [{ port: 8080 }],
        });
        await api(server, "POST", `/orgs/demo/workloads/${made.uid}/deploy`);
        const key = await api<{ uid: string }>(server, "POST", "/orgs/demo/ssh-keys", {
          name: "made-key",
          ssh_key: PUBLIC_KEY,
        });
        p.write(
          "imported.tf",
          [
            `import {\n  to = cws_workload.made\n  id = "${made.uid}"\n}`,
            `resource "cws_workload" "made" {\n  type          = "RENTAL"\n  name          = "made-on-server"\n  image         = "nginx:1.27"\n  resource_name = "gpu-rental-small"\n  ports         = [{ port = 8080 }]\n}`,
            `resource "cws_ssh_key" "made" {\n  name       = "made-key"\n  public_key = "${PUBLIC_KEY}"\n}`,
            "",
          ].join("\n\n"),
        );
        expectExit(await p.run("import", "-var", "image=nginx:1.28", "cws_ssh_key.made", key.uid), 0);
        const plan = expectExit(await p.run("plan", "-var", "image=nginx:1.28"), 0);
        expect(plan.output).toMatch(/Plan: 1 to import, 0 to add, 0 to change, 0 to destroy/);
        expectExit(await p.run("apply", "-auto-approve", "-var", "image=nginx:1.28"), 0);
        expect(expectExit(await p.run("plan", "-var", "image=nginx:1.28"), 0).output).toMatch(/No changes/);
        const state = expectExit(await p.run("state", "list"), 0).stdout;
        expect(state).toMatch(/cws_workload\.made/);
        expect(state).toMatch(/cws_ssh_key\.made/);
      },
      STEP,
    );

    it(
      "destroys everything it manages, leaving the org empty",
      async () => {
        const r = expectExit(await p.run("destroy", "-auto-approve", "-var", "image=nginx:1.28"), 0);
        expect(r.output).toMatch(/Destroy complete! Resources: 9 destroyed/);
        expect(await liveResources(server)).toEqual(EMPTY_ORG);
      },
      STEP,
    );
  });

  describe("a create whose wait fails", () => {
    // Deploys take longer than the program's create timeout.
    const server = useTestServer({ provisionDelayMs: 8000 });
    let p: TofuProject;
    beforeAll(async () => {
      requireTool(tool);
      p = tofuProject(
        server,
        {
          "main.tf": [
            `terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}`,
            `resource "cws_workload" "slow" {\n  type          = "RENTAL"\n  name          = "slow"\n  image         = "nginx:1.27"\n  resource_name = "gpu-rental-small"\n\n  timeouts {\n    create = "2s"\n  }\n}`,
            "",
          ].join("\n\n"),
        },
        {},
        tool,
      );
      expectExit(await p.run("init"), 0);
    });
    afterAll(() => {
      p?.cleanup();
    });

    it(
      "keeps the object in state (tainted) with the error, so destroy removes it: nothing is orphaned",
      async () => {
        const apply = expectExit(await p.run("apply", "-auto-approve"), 1);
        expect(apply.output).toMatch(/Error: creating cws_workload slow failed/);
        const live = await liveResources(server);
        expect(live.workloads.map((w) => w.name)).toEqual(["slow"]);
        const shown = expectExit(await p.run("state", "show", "cws_workload.slow"), 0).stdout;
        expect(shown).toMatch(/# cws_workload\.slow: \(tainted\)/);
        expect(shown).toMatch(new RegExp(`\\bid += "${live.workloads[0]!.uid}"`));
        expectExit(await p.run("destroy", "-auto-approve"), 0);
        expect((await liveResources(server)).workloads).toEqual([]);
      },
      STEP,
    );
  });

  describe("docs/opentofu.md", () => {
    it(
      "names the release the tests run in its version table, and each feature as there in that release",
      async () => {
        const doc = readFileSync(DOC, "utf8");
        const tested = markdownTable(doc, "Tool").find((r) => r.Tool === tool.product);
        // Under `npm run test:next`, the release in the "Next release" column.
        expect(tested?.[UNDER_NEXT ? "Next release" : "Release tested"]?.split(" ")[0]).toBe(tool.version);
        // The binary is that release (unless CWS_TOFU or CWS_TERRAFORM names one of the user's).
        if (!process.env.CWS_TOFU && !process.env.CWS_TERRAFORM)
          expect(
            (await runProcess(tool.path, ["version"], { env: { ...process.env, CHECKPOINT_DISABLE: "1" } }))
              .stdout,
          ).toMatch(new RegExp(`^${tool.product} v${tool.version.replace(/\./g, "\\.")}$`, "m"));
        // Every feature the table lists is run by these tests: each needs at most this release.
        const features = markdownTable(doc, "Feature");
        expect(features.length).toBeGreaterThanOrEqual(3);
        for (const f of features) {
          // `no`: the tool lacks it and ignores it (actions under OpenTofu: e2e/opentofu/actions.test.ts).
          if (/^no\b/.test(f[tool.product]!)) continue;
          const since = /^(\d+\.\d+)\+$/.exec(f[tool.product]!)?.[1];
          expect(since, `${f.Feature}: ${f[tool.product]}`).toBeDefined();
          expect(compareReleases(since!, tool.version), f.Feature).toBeLessThanOrEqual(0);
        }
        if (tool.name === "opentofu") {
          // The older release the tests run is named, and it is before write-only attributes.
          expect(tested?.["Also tested"]).toMatch(
            new RegExp(`^${OLDEST_TOFU_VERSION.replace(/\./g, "\\.")} `),
          );
          const writeOnly = features.find((f) => f.Feature!.includes("password_wo"))!;
          expect(compareReleases(OLDEST_TOFU_VERSION, writeOnly.OpenTofu!.slice(0, -1))).toBe(-1);
        }
      },
      STEP,
    );

    it(
      "has HCL that the tool validates against the provider's schema, for every resource and data source",
      async () => {
        const doc = readFileSync(DOC, "utf8");
        const blocks = [...doc.matchAll(/```hcl\n([\s\S]*?)```/g)]
          .map((m) => m[1]!)
          .filter((b) => !b.includes("provider_installation"));
        const hcl = blocks.join("\n");
        for (const kind of [
          "workload",
          "sandbox",
          "sandbox_template",
          "workload_template",
          "volume",
          "ssh_key",
        ])
          expect(hcl).toMatch(new RegExp(`resource "cws_${kind}"`));
        for (const lookup of [
          "sandbox_templates",
          "regions",
          "vm_images",
          "bm_images",
          "workload_templates",
          "ssh_keys",
          "volumes",
          "workload",
          "workload_events",
          "workload_logs",
        ])
          expect(hcl).toMatch(new RegExp(`data "cws_${lookup}"`));
        const variables = ["registry_password", "vm_password", "public_key"]
          .map((v) => `variable "${v}" {\n  type      = string\n  sensitive = true\n}`)
          .join("\n");
        const p = tofuProject(
          { baseUrl: "http://127.0.0.1:9/v3" },
          { "main.tf": `${hcl}\n${variables}\n` },
          {},
          tool,
        );
        await expectValidConfig(p);
      },
      STEP,
    );
  });
});
