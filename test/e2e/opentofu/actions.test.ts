/**
 * Actions through terraform-provider-cws under Terraform 1.16.4, against the reference server:
 *
 * - docs/actions.md run as written, every block in order in one project (HCL blocks are its
 *   configuration so far, shell blocks its commands, output blocks checked against what the
 *   command before printed): a VM rebooted by `-invoke` and by an `after_update` trigger (one
 *   Reboot event of the workload per invocation, and `plan` clean after each), a command run in
 *   a sandbox from `after_create` with its output printed, a sandbox command exiting non-zero
 *   failing the apply with the code and the last lines of output, a wrong target refused at plan,
 *   `before_destroy`;
 * - the other wrong targets refused at plan naming the rule (an exec on a VM, a stopped
 *   workload), a RENTAL workload's exec output from `after_create`, and `after_destroy`;
 * - the examples of the actions' reference pages, validated;
 * - OpenTofu 1.12.6 and 1.10.6, which have no actions, ignore the schema's new parts (actions,
 *   list resources) and plan, apply and destroy as before.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLDEST_TOFU_VERSION, tofuPath } from "../../../scripts/toolchain/tofu.ts";
import { api } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { fencedBlocks, outputLinePattern } from "../../helpers/markdown.ts";
import { ACTIONS } from "../../../provider/registry.ts";
import { actionExample } from "../../../scripts/gen/action-docs.ts";
import { liveResources } from "../../helpers/stacks.ts";
import { tofuProvider } from "../../provider/opentofu/fixture.ts";
import {
  OPENTOFU,
  TERRAFORM,
  expectExit,
  expectValidConfig,
  requireTool,
  toolTitle,
  tofuProject,
  words,
  type TofuProject,
  type TofuRun,
} from "../../helpers/tofu.ts";

const STEP = 300_000;
const DOC = new URL("../../../docs/actions.md", import.meta.url);
const REQUIRED = `terraform {\n  required_providers {\n    cws = { source = "cws/cws" }\n  }\n}\n`;
const VM_PASSWORD = "Vm-pass-actions-1";

describe(`docs/actions.md under ${toolTitle(TERRAFORM)}`, () => {
  const server = useTestServer();
  let p: TofuProject;
  beforeAll(() => requireTool(TERRAFORM));
  afterAll(() => p?.cleanup());

  const workloadUid = async (name: string) =>
    (await liveResources(server)).workloads.find((w) => w.name === name)?.uid;
  const reboots = async (uid: string) =>
    (
      await api<{ items: { reason: string }[] }>(
        server,
        "GET",
        `/orgs/demo/workloads/${uid}/events?limit=1000`,
      )
    ).items.filter((e) => e.reason === "Reboot").length;
  const planIsClean = async (vmName: string) =>
    expect(
      words(expectExit(await p.run("plan", "-detailed-exitcode", "-var", `vm_name=${vmName}`), 0)),
    ).toMatch(/No changes\./);

  /** What the page's commands must have done, checked after each (by the command as written). */
  const after: Record<string, (r: TofuRun) => Promise<void>> = {
    "terraform apply -auto-approve -invoke=action.cws_workload_reboot.vm": async () => {
      expect(await reboots((await workloadUid("app-vm"))!)).toBe(1);
      await planIsClean("app-vm");
    },
    "terraform apply -auto-approve -var vm_name=app-vm-2": async (r) => {
      const vm = (await workloadUid("app-vm-2"))!;
      // The rename triggered exactly one more reboot; later applies of the same name trigger none.
      expect(await reboots(vm)).toBe(2);
      expect(r.output).not.toMatch(/cws_workload_exec\.check/);
      await planIsClean("app-vm-2");
    },
    "terraform apply -auto-approve -var vm_name=app-vm-2 -invoke=action.cws_sandbox_write_file.config":
      async (r) => {
        expect(r.output).not.toContain("mode = prod");
        const box = (await workloadUid("migrate-box"))!;
        const file = await api<{ content_b64: string }>(
          server,
          "GET",
          `/orgs/demo/workloads/${box}/files?path=/workspace/app.conf`,
        );
        expect(Buffer.from(file.content_b64, "base64").toString()).toBe("mode = prod\n");
        await planIsClean("app-vm-2");
      },
    "terraform plan -var vm_name=app-vm-2 -invoke=action.cws_workload_reboot.box": async () => {
      expect(await reboots((await workloadUid("migrate-box"))!)).toBe(0);
    },
    "terraform destroy -auto-approve -var vm_name=app-vm-2": async () => {
      expect((await liveResources(server)).workloads).toEqual([]);
    },
  };

  it(
    "runs every block of the page in order: reboots, exec output, a failing exec, a refused target, before_destroy",
    async () => {
      const blocks = fencedBlocks(readFileSync(DOC, "utf8"));
      expect(blocks.map((b) => b.lang).filter((l) => !["hcl", "sh", "text"].includes(l))).toEqual([]);
      p = tofuProject(server, { "main.tf": REQUIRED }, { TF_VAR_vm_password: VM_PASSWORD }, TERRAFORM);
      expectExit(await p.run("init"), 0);
      const hcl = [REQUIRED];
      let last: TofuRun | undefined;
      let commands = 0;
      for (const [i, b] of blocks.entries()) {
        if (b.lang === "hcl") {
          hcl.push(b.text);
          p.write("main.tf", hcl.join("\n"));
        } else if (b.lang === "sh") {
          const lines = b.text.trim().split("\n");
          for (const [j, line] of lines.entries()) {
            const [tool, ...args] = line.split(" ");
            expect(tool).toBe("terraform");
            last = await p.run(...args);
            commands++;
            // The last command of a block fails when its output block shows an error.
            const next = blocks[i + 1];
            const fails = j === lines.length - 1 && next?.lang === "text" && next.text.startsWith("Error:");
            if (fails) expect(last.code, `${line}:\n${last.output}`).not.toBe(0);
            else expectExit(last, 0);
            await after[line]?.(last);
          }
        } else {
          expect(last, "an output block follows a command").toBeDefined();
          const output = words(last!);
          for (const line of b.text.trim().split("\n"))
            expect(output, `${last!.command} prints: ${line}`).toMatch(outputLinePattern(line));
        }
      }
      expect(commands).toBeGreaterThanOrEqual(7);
      // Every check above ran: each names a command of the page.
      const run = blocks.filter((b) => b.lang === "sh").flatMap((b) => b.text.trim().split("\n"));
      for (const command of Object.keys(after)) expect(run).toContain(command);
      // The VM's password never shows in what Terraform printed.
      expect(last!.output).not.toContain(VM_PASSWORD);
    },
    STEP * 2,
  );
});

describe(`wrong targets refused at plan, and a RENTAL exec from after_create, under ${toolTitle(TERRAFORM)}`, () => {
  const server = useTestServer();

  it(
    "refuses an exec on a VM and on a stopped workload naming the rule; a RENTAL command's output from after_create, and after_destroy",
    async () => {
      requireTool(TERRAFORM);
      const p = tofuProject(
        server,
        {
          "main.tf": `${REQUIRED}
resource "cws_workload" "vm" {
  type          = "VM"
  name          = "rule-vm"
  image         = "ubuntu-22.04"
  resource_name = "vm-standard"
  vm_config     = { password = "${VM_PASSWORD}" }
}

resource "cws_workload" "idle" {
  type          = "RENTAL"
  name          = "rule-idle"
  image         = "nginx:1.27"
  resource_name = "gpu-rental-small"
  suspended     = true
}

resource "cws_workload" "web" {
  type          = "RENTAL"
  name          = "rule-web"
  image         = "nginx:1.27"
  resource_name = "gpu-rental-small"

  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.cws_workload_exec.hello]
    }
  }
}

action "cws_workload_exec" "hello" {
  config {
    workload_id = caller.id
    command     = ["echo", "hello from rental"]
  }
}

action "cws_workload_exec" "on_vm" {
  config {
    workload_id = cws_workload.vm.id
    command     = ["uptime"]
  }
}

action "cws_workload_exec" "on_idle" {
  config {
    workload_id = cws_workload.idle.id
    command     = ["uptime"]
  }
}

resource "cws_sandbox" "temp" {
  name     = "rule-temp"
  template = "tpl-ubuntu-headless"

  lifecycle {
    action_trigger {
      events  = [after_destroy]
      actions = [action.cws_workload_exec.gone]
    }
  }
}

action "cws_workload_exec" "gone" {
  config {
    workload_id = cws_workload.web.id
    command     = ["echo", "rule-temp is gone"]
  }
}
`,
        },
        {},
        TERRAFORM,
      );
      try {
        expectExit(await p.run("init"), 0);
        const applied = words(expectExit(await p.run("apply", "-auto-approve"), 0));
        expect(applied).toMatch(
          /Action action\.cws_workload_exec\.hello \(triggered by cws_workload\.web\): hello from rental/,
        );
        const onVm = words(await p.run("plan", "-invoke=action.cws_workload_exec.on_vm"));
        expect(onVm).toMatch(/Error: cws_workload_exec refused: workload_id/);
        expect(onVm).toMatch(
          /exec runs in RENTAL workloads and sandboxes only: workload rule-vm \(\S+\) is a VM/,
        );
        const onIdle = words(await p.run("plan", "-invoke=action.cws_workload_exec.on_idle"));
        expect(onIdle).toMatch(
          /workload rule-idle \(\S+\) is suspended, not running: cws_workload_exec acts only on a running workload/,
        );
        expect(words(expectExit(await p.run("plan", "-detailed-exitcode"), 0))).toMatch(/No changes\./);
        // after_destroy: once the sandbox is gone, a command in the workload that stays.
        const gone = words(
          expectExit(await p.run("destroy", "-auto-approve", "-target=cws_sandbox.temp"), 0),
        );
        expect(gone).toMatch(
          /Action action\.cws_workload_exec\.gone \(triggered by cws_sandbox\.temp\): rule-temp is gone/,
        );
        expect((await liveResources(server)).workloads.map((w) => w.name)).not.toContain("rule-temp");
        expectExit(await p.run("destroy", "-auto-approve"), 0);
      } finally {
        p.cleanup();
      }
    },
    STEP,
  );
});

describe(`the actions' reference pages under ${toolTitle(TERRAFORM)}`, () => {
  it(
    "have examples that Terraform validates against the provider's schema",
    async () => {
      requireTool(TERRAFORM);
      const examples = Object.values(ACTIONS).map((a) => actionExample(a));
      const p = tofuProject(
        { baseUrl: "http://127.0.0.1:9/v3" },
        {
          "main.tf": `${REQUIRED}
resource "cws_workload" "vm" {
  type          = "VM"
  name          = "vm"
  image         = "ubuntu-22.04"
  resource_name = "vm-standard"
  vm_config     = { password = "${VM_PASSWORD}" }
}

resource "cws_sandbox" "box" {
  name     = "box"
  template = "tpl-ubuntu-headless"
}

${examples.join("\n")}`,
        },
        {},
        TERRAFORM,
      );
      await expectValidConfig(p);
    },
    STEP,
  );
});

describe("OpenTofu, which has no actions, ignores the schema's new parts", () => {
  const server = useTestServer();

  it.each([OPENTOFU.version, OLDEST_TOFU_VERSION])(
    "OpenTofu %s plans, applies and destroys as before",
    async (version) => {
      // What it is served: the provider's schema holds actions and list resources.
      const schema = tofuProvider().getProviderSchema() as Record<
        string,
        Record<string, unknown> | undefined
      >;
      expect(Object.keys(schema.action_schemas ?? {})).toContain("cws_workload_exec");
      expect(Object.keys(schema.list_resource_schemas ?? {})).toContain("cws_workload");
      const tofu = tofuPath(version);
      const p = tofuProject(
        server,
        {
          "main.tf": `${REQUIRED}
data "cws_regions" "all" {}

resource "cws_workload" "web" {
  type          = "RENTAL"
  name          = "old-tool-web"
  image         = "nginx:1.27"
  resource_name = "gpu-rental-small"
}
`,
        },
        {},
        tofu,
      );
      try {
        expectExit(await p.run("init"), 0);
        expectExit(await p.run("apply", "-auto-approve"), 0);
        expect(words(expectExit(await p.run("plan", "-detailed-exitcode"), 0))).toMatch(/No changes\./);
        expectExit(await p.run("destroy", "-auto-approve"), 0);
        expect((await liveResources(server)).workloads).toEqual([]);
      } finally {
        p.cleanup();
      }
    },
    STEP,
  );
});
