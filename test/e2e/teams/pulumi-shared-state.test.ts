/**
 * Pulumi stacks as teams run them: state in a shared DIY backend on an S3-compatible store
 * (moto, started here), one org shared by the stacks, CI jobs at the same time.
 *
 * - Two stacks of one program (a review stack per pull request: no `name` in the program, so
 *   every object is auto-named) run `up` at once in one org while creates lose their answers
 *   after the service acted: both complete, each stack holds only its own objects, each previews
 *   clean, and destroying one leaves the other's objects untouched. Through both front ends.
 * - Two runs of one stack at once (two CI jobs of one branch): the second fails on the backend's
 *   lock with Pulumi's message, the first completes, the state is whole and the service holds
 *   exactly the stack's objects, once each.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ConfigMap } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineStack, type OfflineStack } from "../../../scripts/offline-stack.ts";
import { FRONT_ENDS, type FrontEnd } from "../../helpers/front-ends.ts";
import { admin } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { sshKey } from "../../helpers/ssh-keys.ts";
import { EMPTY_ORG, failureOf, liveObjects, liveResources, stackConfig } from "../../helpers/stacks.ts";
import { BACKEND_START_MS, startMoto, type S3Store } from "../../helpers/team-backends.ts";

const SCENARIO_MS = 480_000;
/** An auto-name: the logical name, a hyphen and seven hex digits. */
const autoNamed = (logical: string) => new RegExp(`^${logical}-[0-9a-f]{7}$`);

/** One program, as a team writes it for review stacks: no names, the service's objects auto-named. */
function program(fe: FrontEnd) {
  const { SshKey, Volume, Workload, WorkloadTemplate } = fe.sdk;
  return async () => {
    const key = new SshKey("deploy", { publicKey: sshKey(71, "ci@team") });
    const data = new Volume("data", { sizeInMb: 256, resourceName: "gpu-rental-small" });
    const web = new Workload("web", {
      type: "RENTAL",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
      ports: [{ port: 8080 }],
      sshKeys: [key.uid],
      volumes: [{ uid: data.uid, mountPath: "/data" }],
    });
    const tpl = new WorkloadTemplate("web-template", {
      type: "RENTAL",
      manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
    });
    return {
      status: web.status,
      names: pulumi.all({ key: key.name, data: data.name, web: web.name, tpl: tpl.name }),
    };
  };
}
const OBJECTS = 4;

interface StateResource {
  id?: string;
  type: string;
  outputs?: { name?: string };
}

/** The service objects a stack's state holds: id → name. */
async function owned(s: OfflineStack): Promise<Map<string, string>> {
  const state = await s.stack.exportStack();
  const resources = (state.deployment.resources ?? []) as StateResource[];
  return new Map(
    resources
      .filter((r) => r.id && !r.type.startsWith("pulumi:"))
      .map((r) => [r.id!, String(r.outputs?.name)] as const),
  );
}

describe("Pulumi stacks sharing a DIY backend on S3 (moto) and one org", () => {
  let s3: S3Store;
  const stacks: OfflineStack[] = [];
  let server: TestServer | undefined;
  beforeAll(async () => {
    s3 = await startMoto();
  }, BACKEND_START_MS + 30_000);
  afterAll(async () => {
    for (const s of stacks.splice(0)) await s.cleanup();
    await server?.close();
    await s3?.close();
  });

  /** A workspace of `stackName` of the project, its state in the bucket. */
  const workspace = async (fe: FrontEnd, project: string, stackName: string, config: ConfigMap) => {
    const s = await offlineStack({
      projectName: project,
      stackName,
      program: program(fe),
      config,
      backendUrl: s3.backendUrl(),
      env: { ...s3.env, ...fe.env },
    });
    stacks.push(s);
    return s;
  };

  it.each(FRONT_ENDS)(
    "$name front end: two review stacks of one program up at once, creates losing their answers: each owns its own objects",
    { timeout: SCENARIO_MS },
    async (fe) => {
      server = await startTestServer({ provisionDelayMs: 20 });
      const project = `app-${fe.name}`;
      const [pr1, pr2] = [
        await workspace(fe, project, "pr-1", stackConfig(server)),
        await workspace(fe, project, "pr-2", stackConfig(server)),
      ];
      // The first creates of every kind are carried out, and their answers lost (a gateway's 502).
      for (const path of ["workloads", "volumes", "ssh-keys", "templates"])
        await admin(server, "POST", "/faults", {
          method: "POST",
          path: `^/orgs/demo/${path}$`,
          count: 1,
          status: 502,
          when: "after",
        });

      const [a, b] = await Promise.all([pr1!.stack.up(), pr2!.stack.up()]);
      for (const r of [a, b]) {
        expect(r.summary.result).toBe("succeeded");
        expect(r.outputs.status!.value).toBe("running");
      }
      // Every injected fault was taken (a fault that has taken its count is dropped).
      expect((await admin<{ items: unknown[] }>(server, "GET", "/faults")).items).toEqual([]);

      // Each stack's objects are its own: distinct uids and names, every live object in one stack.
      const [mine, theirs, all] = [await owned(pr1!), await owned(pr2!), await liveObjects(server)];
      expect(mine.size).toBe(OBJECTS);
      expect(theirs.size).toBe(OBJECTS);
      expect([...mine.keys()].filter((id) => theirs.has(id))).toEqual([]);
      expect([...all.keys()].sort()).toEqual([...mine.keys(), ...theirs.keys()].sort());
      for (const [id, name] of [...mine, ...theirs]) expect(all.get(id)).toBe(name);
      expect(new Set(all.values()).size).toBe(2 * OBJECTS);
      for (const r of [a, b]) {
        const names = r.outputs.names!.value as Record<string, string>;
        expect(names.key).toMatch(autoNamed("deploy"));
        expect(names.data).toMatch(autoNamed("data"));
        expect(names.web).toMatch(autoNamed("web"));
        expect(names.tpl).toMatch(autoNamed("web-template"));
      }

      // Each stack previews clean: the auto-names are kept in state.
      for (const s of [pr1!, pr2!]) {
        const p = await s.stack.preview();
        expect(p.changeSummary).toEqual({ same: OBJECTS + 1 });
      }

      // Closing pull request 1 destroys its stack; pull request 2's objects stay as they were.
      await pr1!.stack.destroy();
      await pr1!.stack.workspace.removeStack("pr-1");
      expect(await liveObjects(server)).toEqual(theirs);
      const web = (await liveResources(server)).workloads.find((w) => theirs.has(w.uid));
      expect(web?.state?.status).toBe("running");
      expect((await pr2!.stack.preview()).changeSummary).toEqual({ same: OBJECTS + 1 });

      await pr2!.stack.destroy();
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
      expect(await s3.list(`.pulumi/locks/`)).toEqual([]);
      await server.close();
      server = undefined;
    },
  );

  it(
    "two runs of one stack at once: the second fails on the lock with Pulumi's message, the first completes, the state is whole",
    { timeout: SCENARIO_MS },
    async () => {
      const fe = FRONT_ENDS.find((f) => f.name === "native")!;
      server = await startTestServer({ provisionDelayMs: 20 });
      const project = "app-locking";
      const first = await workspace(fe, project, "main", stackConfig(server));
      const second = await workspace(fe, project, "main", stackConfig(server));

      // The first job holds the lock for a while: its workload takes 8 s to come up.
      await admin(server, "POST", "/orgs/demo/provisioning", { outcome: "running", delay_ms: 8_000 });
      // The second job starts while the first holds the lock (its engine has begun).
      let holding!: () => void;
      const locked = new Promise<void>((resolve) => (holding = resolve));
      const run1 = first.stack.up({ onEvent: () => holding() });
      await locked;
      const refused = await failureOf(second.stack.up());
      const done = await run1;

      expect(refused?.message).toMatch(
        /the stack is currently locked by 1 lock\(s\)\. Either wait for the other process\(es\) to end or delete the lock file with `pulumi cancel`\./,
      );
      expect(done.summary.result).toBe("succeeded");
      expect(done.summary.resourceChanges).toEqual({ create: OBJECTS + 1 });
      expect(await s3.list(`.pulumi/locks/`)).toEqual([]);

      // The state is whole and the service holds the stack's objects once each, nothing else.
      const state = await owned(second);
      expect(state.size).toBe(OBJECTS);
      expect(await liveObjects(server)).toEqual(state);

      // The refused job, run again, finds nothing to do.
      const again = await second.stack.up();
      expect(again.summary.resourceChanges).toEqual({ same: OBJECTS + 1 });
      expect(await liveObjects(server)).toEqual(state);

      await second.stack.destroy();
      expect(await liveResources(server)).toEqual(EMPTY_ORG);
      await server.close();
      server = undefined;
    },
  );
});
