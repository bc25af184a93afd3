/**
 * The `import` and `customTimeouts` resource options, through both front ends: the native plugin
 * gets them from the engine; the dynamic classes turn `import` into adoption and hand the
 * timeouts to the provider.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { afterAll, describe, expect, it } from "vitest";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { api } from "../../helpers/http.ts";
import { startTestServer, useTestServer, type TestServer } from "../../helpers/server.ts";
import { cwsStack, failureOf, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";

const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx options@cws";

describe.each(FRONT_ENDS)("$name front end: resource options", (fe) => {
  const server = useTestServer();
  const stacks: OfflineStack[] = [];
  afterAll(async () => {
    for (const s of stacks) await s.cleanup();
  });

  it("the `import` option takes existing objects under management; the next preview is empty", async () => {
    const p = `imp-${fe.name}`;
    const key = await api<{ uid: string }>(server, "POST", "/orgs/demo/ssh-keys", {
      name: `${p}-key`,
      ssh_key: PUBLIC_KEY,
    });
    const wl = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
      type: "RENTAL",
      name: `${p}-web`,
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
    });
    await api(server, "POST", `/orgs/demo/workloads/${wl.uid}/deploy`);
    const { SshKey, Workload } = fe.sdk;
    const s = await cwsStack(
      server,
      `import-option-${fe.name}`,
      async () => {
        const k = new SshKey("key", { name: `${p}-key`, publicKey: PUBLIC_KEY }, { import: key.uid });
        const w = new Workload(
          "web",
          { type: "RENTAL", name: `${p}-web`, image: "nginx:1.27", resourceName: "gpu-rental-small" },
          { import: wl.uid },
        );
        return { key: k.uid, web: w.uid, status: w.status };
      },
      {},
      fe.env,
    );
    stacks.push(s);
    const up = await s.stack.up();
    expect(up.outputs.key!.value).toBe(key.uid);
    expect(up.outputs.web!.value).toBe(wl.uid);
    expect(up.outputs.status!.value).toBe("running");
    expect((await s.stack.preview()).changeSummary).toEqual({ same: 3 });
    await s.stack.destroy();
    expect((await liveResources(server)).ssh_keys.map((k) => k.uid)).not.toContain(key.uid);
  });

  it("preview says on the resource's line that an image change redeploys the workload; a refresh of drift does not", async () => {
    const { Workload } = fe.sdk;
    let image = "nginx:1.27";
    const s = await cwsStack(
      server,
      `redeploy-words-${fe.name}`,
      async () => {
        const w = new Workload("web", {
          type: "RENTAL",
          name: `words-${fe.name}`,
          image,
          resourceName: "gpu-rental-small",
        });
        return { uid: w.uid };
      },
      {},
      fe.env,
    );
    stacks.push(s);
    const up = await s.stack.up();
    // Said on the resource's own line (a diagnostic with its URN), in both front ends.
    const said: string[] = [];
    const onEvent = (e: EngineEvent) => {
      const d = e.diagnosticEvent;
      if (d?.urn?.endsWith("::web")) said.push(d.message);
    };
    // A refresh that finds the image changed on the service shows the drift and says nothing of a
    // redeploy: refresh changes nothing.
    await api(server, "PATCH", `/orgs/demo/workloads/${String(up.outputs.uid!.value)}`, {
      image: "nginx:1.29",
    });
    const refresh = await s.stack.refresh({ onEvent });
    expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(said).toEqual([]);
    image = "nginx:1.28";
    const preview = await s.stack.preview({ onEvent });
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    expect(said.join("")).toMatch(`image changes: the service redeploys workload words-${fe.name}`);
    await s.stack.destroy();
  });

  it("customTimeouts bound the create: a 2 s timeout on a 10 s deploy fails and keeps the workload", async () => {
    const slow = await startTestServer({ provisionDelayMs: 10_000 });
    try {
      const { Workload } = fe.sdk;
      const s = await cwsStack(
        slow,
        `timeouts-${fe.name}`,
        async () => {
          const w = new Workload(
            "slow",
            { type: "RENTAL", name: "slow", image: "nginx:1.27", resourceName: "gpu-rental-small" },
            { customTimeouts: { create: "2s" } },
          );
          return { uid: w.uid };
        },
        {},
        fe.env,
      );
      stacks.push(s);
      const err = await failureOf(s.stack.up());
      // The wait gave up within the program's 2 s, not at readyTimeoutSec (600 s) or the deploy's end.
      const waited = /did not come up: timed out after (\d+) ms/.exec(err?.message ?? "");
      expect(waited, err?.message).not.toBeNull();
      expect(Number(waited![1])).toBeLessThanOrEqual(2_000);
      const state = await s.stack.exportStack();
      const kept = (state.deployment.resources as { type: string; id?: string }[]).find((r) =>
        r.type.endsWith("Workload"),
      );
      expect(kept?.id).toMatch(/.+/);
      expect((await liveResources(slow)).workloads.map((w) => w.uid)).toContain(kept!.id);
    } finally {
      await slow.close();
    }
  });

  it("a sandbox lost when the server restarted: refresh records the error, preview shows the repairing update, up repairs it", async () => {
    let lost = (await startTestServer({ dataDir: true, sandboxRoot: true })) as TestServer;
    const { Sandbox } = fe.sdk;
    try {
      const s = await cwsStack(
        lost,
        `lost-sandbox-${fe.name}`,
        async () => {
          const box = new Sandbox("box", { name: `lost-${fe.name}`, template: "tpl-ubuntu-headless" });
          return { status: box.status };
        },
        {},
        fe.env,
      );
      stacks.push(s);
      expect((await s.stack.up()).outputs.status!.value).toBe("running");
      lost = await lost.restart();
      await s.stack.setConfig("cws:baseUrl", { value: lost.baseUrl });
      // The restarted service listens elsewhere: the program's configuration says where.
      let said: string[] = [];
      const onEvent = (e: EngineEvent) => {
        if (e.diagnosticEvent?.urn?.endsWith("::box")) said.push(e.diagnosticEvent.message);
      };
      // The refresh that finds it broken says so, and what up does about it.
      await s.stack.refresh({ runProgram: true, onEvent });
      expect((await s.stack.outputs()).status!.value).toBe("error");
      const broken = `sandbox lost-${fe.name} is in error on the service: up redeploys it`;
      expect(said.join("")).toContain(broken);
      said = [];
      const preview = await s.stack.preview({ onEvent });
      expect(preview.changeSummary).toEqual({ update: 1, same: 1 });
      expect(said.join("")).toContain(broken);
      expect((await s.stack.up()).outputs.status!.value).toBe("running");
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
      await s.stack.destroy();
    } finally {
      await lost.close();
    }
  });
});
