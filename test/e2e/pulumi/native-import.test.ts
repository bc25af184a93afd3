import * as pulumi from "@pulumi/pulumi";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshKey, Volume, Workload } from "../../../sdk/native/index.ts";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { runProcess } from "../../../scripts/run.ts";
import { pulumiRoot } from "../../../scripts/toolchain/pulumi.ts";
import { api, DEMO_TOKEN } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { failureOf, liveResources } from "../../helpers/stacks.ts";
import { nativeStack } from "../../helpers/native.ts";

const VM_PASSWORD = "vm-import-pass-5e7a";
const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx import@cws";

/** A RENTAL workload (deployed), a volume and an SSH key made through the API, as a user would have them. */
async function madeThroughTheApi(server: TestServer, prefix: string) {
  const key = await api<{ uid: string }>(server, "POST", "/orgs/demo/ssh-keys", {
    name: `${prefix}-key`,
    ssh_key: PUBLIC_KEY,
  });
  const vol = await api<{ uid: string }>(server, "POST", "/orgs/demo/volumes", {
    name: `${prefix}-vol`,
    size_in_mb: 256,
    resource_name: "gpu-rental-small",
  });
  const wl = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
    type: "RENTAL",
    name: `${prefix}-web`,
    image: "nginx:1.27",
    resource_name: "gpu-rental-small",
    ports: [{ port: 8080 }],
    envs: [{ name: "MODE", value: "prod" }],
  });
  await api(server, "POST", `/orgs/demo/workloads/${wl.uid}/deploy`);
  return { key: key.uid, vol: vol.uid, wl: wl.uid };
}

describe("native plugin: import and customTimeouts", () => {
  let server: TestServer;
  const stacks: OfflineStack[] = [];
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    for (const s of stacks) await s.cleanup();
    await server?.close();
  });

  it("adopts objects made through the API with the `import` resource option; the next preview is empty", async () => {
    const uids = await madeThroughTheApi(server, "opt");
    const vm = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
      type: "VM",
      name: "opt-vm",
      image: "ubuntu-22.04",
      resource_name: "vm-standard",
      vm_config: { password: VM_PASSWORD },
    });
    await api(server, "POST", `/orgs/demo/workloads/${vm.uid}/deploy`);
    const s = await nativeStack(server, "native-import-option", async () => {
      const key = new SshKey("key", { name: "opt-key", publicKey: PUBLIC_KEY }, { import: uids.key });
      const vol = new Volume(
        "vol",
        { name: "opt-vol", sizeInMb: 256, resourceName: "gpu-rental-small" },
        { import: uids.vol },
      );
      const web = new Workload(
        "web",
        {
          type: "RENTAL",
          name: "opt-web",
          image: "nginx:1.27",
          resourceName: "gpu-rental-small",
          ports: [{ port: 8080 }],
          envs: [{ name: "MODE", value: "prod" }],
        },
        { import: uids.wl },
      );
      // The service never returns the password: the program's is taken, not compared (no replace).
      const vmw = new Workload(
        "vm",
        {
          type: "VM",
          name: "opt-vm",
          image: "ubuntu-22.04",
          resourceName: "vm-standard",
          vmConfig: { password: pulumi.secret(VM_PASSWORD) },
        },
        { import: vm.uid },
      );
      return { key: key.uid, vol: vol.uid, web: web.uid, status: web.status, vm: vmw.uid };
    });
    stacks.push(s);
    const up = await s.stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ import: 4 });
    expect(up.outputs.vm!.value).toBe(vm.uid);
    expect(up.outputs.web!.value).toBe(uids.wl);
    expect(up.outputs.vol!.value).toBe(uids.vol);
    expect(up.outputs.key!.value).toBe(uids.key);
    expect(up.outputs.status!.value).toBe("running");
    expect((await s.stack.preview()).changeSummary).toEqual({ same: 5 });
    expect(JSON.stringify(await s.stack.exportStack())).not.toContain(VM_PASSWORD);
    // Imported objects are managed from now on: destroy removes them from the service.
    await s.stack.destroy();
    const live = await liveResources(server);
    expect(live.ssh_keys.map((k) => k.uid)).not.toContain(uids.key);
    expect(live.volumes.map((v) => v.uid)).not.toContain(uids.vol);
  });

  it("imports with the `pulumi import` CLI in a YAML project; declaring the same inputs previews no changes", async () => {
    const uids = await madeThroughTheApi(server, "cli");
    // An Automation API stack gives the offline backend and PULUMI_HOME; the CLI runs in its own YAML project.
    const s = await nativeStack(server, "native-import-cli", async () => ({}));
    stacks.push(s);
    const dir = join(s.dir, "yaml");
    mkdirSync(dir);
    const yaml = (resources: string) =>
      writeFileSync(
        join(dir, "Pulumi.yaml"),
        `name: native-import-cli\nruntime: yaml\nbackend:\n  url: ${s.env.PULUMI_BACKEND_URL}\n${resources}`,
      );
    // Asynchronous: the reference server answers the plugin from this very process.
    const pulumi = async (...args: string[]) => {
      const cli = join(pulumiRoot(), "bin", "pulumi");
      const env = { ...process.env, ...s.env };
      return (await runProcess(cli, [...args, "--non-interactive"], { cwd: dir, env })).stdout;
    };
    yaml("resources: {}\n");
    await pulumi("stack", "init", "yaml");
    await pulumi("config", "set", "cws:baseUrl", server.baseUrl);
    await pulumi("config", "set", "cws:org", "demo");
    await pulumi("config", "set", "--secret", "cws:apiToken", DEMO_TOKEN);
    writeFileSync(
      join(dir, "import.json"),
      JSON.stringify({
        resources: [
          { type: "cws:index:Workload", name: "web", id: uids.wl },
          { type: "cws:index:Volume", name: "vol", id: uids.vol },
          { type: "cws:index:SshKey", name: "key", id: uids.key },
        ],
      }),
    );
    const out = await pulumi("import", "--file", "import.json", "--yes", "--generate-code=false");
    expect(out).toMatch(/3 imported/);

    yaml(`resources:
  web:
    type: cws:index:Workload
    properties:
      type: RENTAL
      name: cli-web
      image: nginx:1.27
      resourceName: gpu-rental-small
      ports:
        - port: 8080
      envs:
        - name: MODE
          value: prod
  vol:
    type: cws:index:Volume
    properties:
      name: cli-vol
      sizeInMb: 256
      resourceName: gpu-rental-small
  key:
    type: cws:index:SshKey
    properties:
      name: cli-key
      publicKey: ${PUBLIC_KEY}
`);
    const preview = await pulumi("preview", "--expect-no-changes", "--diff");
    expect(preview).toMatch(/4 unchanged/);
    const wl = await api<{ name: string; image: string }>(server, "GET", `/orgs/demo/workloads/${uids.wl}`);
    expect(wl.image).toBe("nginx:1.27");
  });

  it("honours customTimeouts: a 2 s create timeout on a 10 s deploy fails in about 2 s and keeps the workload", async () => {
    const slow = await startTestServer({ provisionDelayMs: 10_000 });
    try {
      const s = await nativeStack(slow, "native-timeouts", async () => {
        const w = new Workload(
          "slow",
          { type: "RENTAL", name: "slow", image: "nginx:1.27", resourceName: "gpu-rental-small" },
          { customTimeouts: { create: "2s" } },
        );
        return { uid: w.uid };
      });
      stacks.push(s);
      // From the create step starting to its failure being reported, as the engine's events arrive.
      let started = 0;
      let failed = 0;
      const err = await failureOf(
        s.stack.up({
          onEvent: (e) => {
            if (e.resourcePreEvent?.metadata.urn.endsWith("::slow")) started = Date.now();
            if (e.diagnosticEvent?.severity === "error" && e.diagnosticEvent.urn?.endsWith("::slow"))
              failed ||= Date.now();
          },
        }),
      );
      expect(err?.message).toMatch(/did not come up/);
      const waited = failed - started;
      console.log(`create with customTimeouts 2s on a 10 s deploy failed after ${waited} ms`);
      expect(waited).toBeGreaterThan(1_500);
      expect(waited).toBeLessThan(5_000);
      const state = await s.stack.exportStack();
      const kept = (state.deployment.resources as { type: string; id?: string }[]).find(
        (r) => r.type === "cws:index:Workload",
      );
      expect(kept?.id).toMatch(/.+/);
      const live = await liveResources(slow);
      expect(live.workloads.map((w) => w.uid)).toContain(kept!.id);
    } finally {
      await slow.close();
    }
  });
});
