/**
 * The provider under injected faults, through the real engine: creates whose answer is lost
 * after the service acted, and a share of every request failing at random. Each scenario uses
 * its own server, so the file does not depend on the order of its tests.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { admin } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { sshKey } from "../../helpers/ssh-keys.ts";
import { cwsStack, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";

const SCENARIO_MS = 600_000;

/** Every uid the stack's state holds. */
async function trackedUids(s: OfflineStack): Promise<Set<string>> {
  const state = await s.stack.exportStack();
  const resources = (state.deployment.resources ?? []) as { id?: string }[];
  return new Set(resources.map((r) => r.id).filter((id): id is string => !!id));
}

/** Live objects of the org that no stack tracks, and names held by more than one live object. */
async function audit(server: TestServer, stacks: OfflineStack[]) {
  const live = await liveResources(server);
  const tracked = new Set<string>();
  for (const s of stacks) for (const id of await trackedUids(s)) tracked.add(id);
  const all = [
    ...live.workloads,
    ...live.volumes,
    ...live.ssh_keys,
    ...live.templates,
    ...live.sandbox_templates,
  ];
  const names = new Map<string, number>();
  for (const o of all) names.set(o.name, (names.get(o.name) ?? 0) + 1);
  return {
    count: all.length,
    untracked: all.filter((o) => !tracked.has(o.uid)).map((o) => o.name),
    duplicates: [...names].filter(([, n]) => n > 1).map(([name]) => name),
  };
}

describe.each(FRONT_ENDS)("provider under faults ($name front end)", (fe) => {
  let server: TestServer;
  const stacks: OfflineStack[] = [];
  beforeEach(async () => {
    server = await startTestServer({ provisionDelayMs: 20 });
  });
  afterEach(async () => {
    for (const s of stacks.splice(0)) await s.cleanup();
    await server?.close();
  });

  it(
    "two stacks creating a workload named web at once, their creates answered 502 after acting, get one workload each",
    async () => {
      const { Workload } = fe.sdk;
      const make = (team: string) =>
        cwsStack(
          server,
          `web-${team}-${fe.name}`,
          async () => {
            const w = new Workload("web", {
              type: "RENTAL",
              name: "web",
              image: "nginx:1.27",
              resourceName: "gpu-rental-small",
              envs: [{ name: "TEAM", value: team }],
            });
            return { uid: w.uid, status: w.status };
          },
          {},
          fe.env,
        );
      stacks.push(await make("a"), await make("b"));
      await admin(server, "POST", "/faults", {
        method: "POST",
        path: "^/orgs/demo/workloads$",
        count: 2,
        status: 502,
        when: "after",
      });
      const [a, b] = await Promise.all(stacks.map((s) => s.stack.up()));
      expect((await admin<{ items: unknown[] }>(server, "GET", "/faults")).items).toEqual([]);
      expect(a!.outputs.status!.value).toBe("running");
      expect(b!.outputs.status!.value).toBe("running");
      expect(a!.outputs.uid!.value).not.toBe(b!.outputs.uid!.value);
      const live = await liveResources(server);
      expect(live.workloads.map((w) => w.uid).sort()).toEqual(
        [a!.outputs.uid!.value, b!.outputs.uid!.value].sort(),
      );
      const { untracked } = await audit(server, stacks);
      expect(untracked).toEqual([]);
    },
    SCENARIO_MS,
  );

  it(
    "up of 50 resources with 20% of API requests failing at random succeeds in one run: no duplicate, nothing untracked",
    async () => {
      const { SshKey, Volume, Workload } = fe.sdk;
      const s = await cwsStack(
        server,
        `fifty-${fe.name}`,
        async () => {
          const out: Record<string, unknown> = {};
          for (let i = 0; i < 20; i++) {
            const k = new SshKey(`key-${i}`, { name: `key-${i}`, publicKey: sshKey(500 + i) });
            out[`key${i}`] = k.uid;
          }
          for (let i = 0; i < 20; i++) {
            const v = new Volume(`vol-${i}`, {
              name: `vol-${i}`,
              sizeInMb: 128,
              resourceName: "gpu-rental-small",
            });
            out[`vol${i}`] = v.uid;
          }
          for (let i = 0; i < 10; i++) {
            const w = new Workload(`wl-${i}`, {
              type: "RENTAL",
              name: `wl-${i}`,
              image: "nginx:1.27",
              resourceName: "gpu-rental-small",
              ports: [{ port: 8080 + i }],
            });
            out[`wl${i}`] = w.status;
          }
          return out;
        },
        {},
        fe.env,
      );
      stacks.push(s);
      // Four kinds of failure, each taking 5.5% of the requests the ones before let pass: 20% in all.
      const every = { path: "^/orgs/demo/", rate: 0.055 };
      await admin(server, "POST", "/faults", { ...every, status: 429 });
      await admin(server, "POST", "/faults", { ...every, status: 503 });
      await admin(server, "POST", "/faults", { ...every, status: 502 });
      await admin(server, "POST", "/faults", { ...every, status: 502, when: "after" });

      const up = await s.stack.up();
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges).toEqual({ create: 51 });
      for (let i = 0; i < 10; i++) expect(up.outputs[`wl${i}`]!.value).toBe("running");
      const refresh = await s.stack.refresh();
      expect(refresh.summary.result).toBe("succeeded");
      const faults = await admin<{ items: { taken: number }[] }>(server, "GET", "/faults");
      const taken = faults.items.reduce((n, f) => n + f.taken, 0);
      console.log(
        `faults injected during up and refresh: ${taken} (${faults.items.map((f) => f.taken).join(" + ")})`,
      );
      expect(faults.items.every((f) => f.taken > 0)).toBe(true);

      const { count, untracked, duplicates } = await audit(server, stacks);
      expect(count).toBe(50);
      expect(duplicates).toEqual([]);
      expect(untracked).toEqual([]);

      await admin(server, "DELETE", "/faults");
      await s.stack.destroy();
      expect((await audit(server, stacks)).count).toBe(0);
    },
    SCENARIO_MS,
  );
});
