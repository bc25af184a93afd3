import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { admin, api } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { cwsStack, failureOf, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";

const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx adopt@cws";

/** Each case runs a few engine operations; a loaded 2-core machine needs minutes for some. */
const STEP_MS = 240_000;

describe.each(FRONT_ENDS)("provider: adoption, lookups, failures ($name front end)", (fe) => {
  const { SshKey, Volume, Workload } = fe.sdk;
  let server: TestServer;
  const stacks: OfflineStack[] = [];
  beforeAll(async () => {
    server = await startTestServer();
  }, STEP_MS);
  afterAll(async () => {
    for (const s of stacks) await s.cleanup();
    await server?.close();
  }, STEP_MS);
  const stack = async (name: string, program: () => Promise<Record<string, unknown>>) => {
    const s = await cwsStack(server, `${name}-${fe.name}`, program, {}, fe.env);
    stacks.push(s);
    return s;
  };

  it(
    "adopts a workload, volume and SSH key made through the API, without recreating them",
    async () => {
      const key = await api<{ uid: string }>(server, "POST", "/orgs/demo/ssh-keys", {
        name: "existing-key",
        ssh_key: PUBLIC_KEY,
      });
      const vol = await api<{ uid: string }>(server, "POST", "/orgs/demo/volumes", {
        name: "existing-vol",
        size_in_mb: 256,
        resource_name: "gpu-rental-small",
      });
      const wl = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
        type: "RENTAL",
        name: "existing",
        image: "nginx:1.27",
        resource_name: "gpu-rental-small",
        ports: [{ port: 8080 }],
      });
      await api(server, "POST", `/orgs/demo/workloads/${wl.uid}/deploy`);

      const s = await stack("adopt", async () => {
        const k = new SshKey("key", { name: "existing-key", publicKey: PUBLIC_KEY, adoptUid: key.uid });
        const v = new Volume("vol", {
          name: "existing-vol",
          sizeInMb: 256,
          resourceName: "gpu-rental-small",
          adoptUid: vol.uid,
        });
        const w = new Workload("wl", {
          type: "RENTAL",
          name: "existing",
          image: "nginx:1.27",
          resourceName: "gpu-rental-small",
          ports: [{ port: 8080 }],
          adoptUid: wl.uid,
        });
        return { key: k.uid, vol: v.uid, wl: w.uid, status: w.status };
      });
      const up = await s.stack.up();
      expect(up.outputs.key.value).toBe(key.uid);
      expect(up.outputs.vol.value).toBe(vol.uid);
      expect(up.outputs.wl.value).toBe(wl.uid);
      expect(up.outputs.status.value).toBe("running");
      const live = await liveResources(server);
      expect(live.workloads.filter((w) => w.name === "existing").map((w) => w.uid)).toEqual([wl.uid]);
      expect(live.volumes.filter((v) => v.name === "existing-vol").map((v) => v.uid)).toEqual([vol.uid]);
      expect(live.ssh_keys.filter((k) => k.name === "existing-key").map((k) => k.uid)).toEqual([key.uid]);
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 4 });
      const refresh = await s.stack.refresh();
      expect(refresh.summary.resourceChanges).toEqual({ same: 4 });
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 4 });
    },
    STEP_MS,
  );

  it(
    "reads an existing workload with Workload.get",
    async () => {
      const wl = await api<{ uid: string }>(server, "POST", "/orgs/demo/workloads", {
        type: "RENTAL",
        name: "looked-up",
        image: "nginx:1.27",
        resource_name: "gpu-rental-small",
        envs: [{ name: "A", value: "1" }],
      });
      await api(server, "POST", `/orgs/demo/workloads/${wl.uid}/deploy`);
      await new Promise((r) => setTimeout(r, 300));
      const s = await stack("lookup", async () => {
        const w = Workload.get("existing", wl.uid);
        return { name: w.name, status: w.status, image: w.image };
      });
      const up = await s.stack.up();
      expect(up.outputs.name.value).toBe("looked-up");
      expect(up.outputs.status.value).toBe("running");
      expect(up.outputs.image.value).toBe("nginx:1.27");
    },
    STEP_MS,
  );

  it(
    "keeps a workload whose deploy the service fails in state, and retries it on the next up",
    async () => {
      await admin(server, "POST", "/orgs/demo/provisioning", {
        name: "flaky",
        outcome: "error",
        message: "image pull failed: manifest unknown",
      });
      const s = await stack("failing", async () => {
        const w = new Workload("flaky", {
          type: "RENTAL",
          name: "flaky",
          image: "nginx:1.27",
          resourceName: "gpu-rental-small",
        });
        return { uid: w.uid, status: w.status };
      });
      const failed = await failureOf(s.stack.up());
      expect(failed?.message).toContain("image pull failed: manifest unknown");
      const state = JSON.stringify(await s.stack.exportStack());
      const flaky = (await liveResources(server)).workloads.filter((w) => w.name === "flaky");
      expect(flaky).toHaveLength(1);
      expect(state).toContain(flaky[0]!.uid);

      await admin(server, "DELETE", "/orgs/demo/provisioning");
      const up = await s.stack.up();
      expect(up.outputs.status.value).toBe("running");
      const after = (await liveResources(server)).workloads.filter((w) => w.name === "flaky");
      expect(after).toHaveLength(1);
      await s.stack.destroy();
      expect((await liveResources(server)).workloads.filter((w) => w.name === "flaky")).toEqual([]);
    },
    STEP_MS,
  );

  it(
    "fails fast with the service's reason when a deploy is refused, keeping the workload",
    async () => {
      await admin(server, "POST", "/orgs/demo/credits", { balance: 0 });
      const s = await stack("no-credits", async () => {
        const w = new Workload("broke", {
          type: "RENTAL",
          name: "broke",
          image: "nginx:1.27",
          resourceName: "gpu-rental-small",
        });
        return { uid: w.uid, status: w.status };
      });
      const failed = await failureOf(s.stack.up());
      expect(failed?.message).toContain("WORKLOAD_INSUFFICIENT_CREDITS");
      // Refused at once, not after waiting out the readiness timeout (600 s, beyond this test's time).
      expect(failed?.message).not.toMatch(/timed out/i);
      const broke = (await liveResources(server)).workloads.filter((w) => w.name === "broke");
      expect(broke.map((w) => w.state?.status)).toEqual(["registered"]);
      expect(JSON.stringify(await s.stack.exportStack())).toContain(broke[0]!.uid);

      await admin(server, "POST", "/orgs/demo/credits", { balance: 1000 });
      expect((await s.stack.up()).outputs.status.value).toBe("running");
      await s.stack.destroy();
    },
    STEP_MS,
  );

  it(
    "fails at preview on invalid input, naming the property, and creates nothing",
    async () => {
      const before = await liveResources(server);
      let withKey = true;
      const s = await stack("invalid", async () => {
        const keys = withKey ? [new SshKey("ok-key", { name: "fine", publicKey: PUBLIC_KEY }).uid] : [];
        const w = new Workload("bad", {
          type: "VM",
          name: "bad-vm",
          image: "ubuntu-22.04",
          resourceName: "vm-standard",
          sshKeys: keys,
        });
        return { uid: w.uid };
      });
      const err = await failureOf(s.stack.preview());
      expect(err?.message).toContain("vmConfig.password");
      expect(err?.message).toContain("required for VM workloads");
      expect(await liveResources(server)).toEqual(before);

      withKey = false;
      const upErr = await failureOf(s.stack.up());
      expect(upErr?.message).toContain("vmConfig.password");
      expect(await liveResources(server)).toEqual(before);
    },
    STEP_MS,
  );
});
