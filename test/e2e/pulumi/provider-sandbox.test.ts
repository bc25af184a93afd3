import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { api } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { cwsStack, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS, type FrontEnd } from "../../helpers/front-ends.ts";

const params = {
  name: "box",
  template: "tpl-ubuntu-headless",
  ttlSec: 3600,
  ports: [{ port: 8000 }] as { port: number }[],
  frozen: false,
};

function program(fe: FrontEnd) {
  const { Sandbox } = fe.sdk;
  const box = new Sandbox("box", {
    name: params.name,
    template: params.template,
    ttlSec: params.ttlSec,
    ports: params.ports,
    frozen: params.frozen,
  });
  const fork = new Sandbox("fork", { name: "box-child", forkFrom: box.uid });
  return Promise.resolve({
    uid: box.uid,
    status: box.status,
    revision: box.revision,
    forkUid: fork.uid,
    forkParent: fork.parentUid,
  });
}

type Exec = { stdout: string; code: number };
const exec = (server: TestServer, uid: string, cmd: string) =>
  api<Exec>(server, "POST", `/orgs/demo/workloads/${uid}/exec`, { cmd });

/** Each step runs a few engine operations; a loaded 2-core machine needs minutes for some. */
const STEP_MS = 240_000;

describe.each(FRONT_ENDS)("provider: sandboxes ($name front end)", (fe) => {
  let server: TestServer;
  let s: OfflineStack;
  beforeAll(async () => {
    server = await startTestServer();
    Object.assign(params, {
      name: "box",
      template: "tpl-ubuntu-headless",
      ttlSec: 3600,
      ports: [{ port: 8000 }],
      frozen: false,
    });
    s = await cwsStack(server, `sandboxes-${fe.name}`, () => program(fe), {}, fe.env);
  }, STEP_MS);
  afterAll(async () => {
    await s?.cleanup();
    await server?.close();
  }, STEP_MS);

  it(
    "creates a sandbox and a fork of it",
    async () => {
      const up = await s.stack.up();
      expect(up.outputs.status.value).toBe("running");
      expect(up.outputs.forkParent.value).toBe(up.outputs.uid.value);
      expect((await s.stack.preview()).changeSummary).toEqual({ same: 3 });
    },
    STEP_MS,
  );

  it(
    "updates ttlSec, ports and name in place, without redeploy (processes survive)",
    async () => {
      const { uid, revision } = Object.fromEntries(
        Object.entries(await s.stack.outputs()).map(([k, v]) => [k, v.value as string]),
      );
      await exec(server, uid!, "nohup sleep 1000 >/dev/null 2>&1 & echo $! > /tmp/sleeper.pid");
      params.ttlSec = 7200;
      params.ports = [{ port: 8000 }, { port: 8001 }];
      params.name = "box-renamed";
      const up = await s.stack.up();
      expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
      expect(up.outputs.uid.value).toBe(uid);
      expect(up.outputs.revision.value).toBe(revision);
      const w = await api<{ name: string; ports: { port: number }[]; sandbox_config: { ttl_sec: number } }>(
        server,
        "GET",
        `/orgs/demo/workloads/${uid}`,
      );
      expect(w.name).toBe("box-renamed");
      expect(w.ports.map((p) => p.port)).toEqual([8000, 8001]);
      expect(w.sandbox_config.ttl_sec).toBe(7200);
      const alive = await exec(server, uid!, "kill -0 $(cat /tmp/sleeper.pid) && echo alive");
      expect(alive.stdout.trim()).toBe("alive");
    },
    STEP_MS,
  );

  it(
    "freezes and thaws with `frozen`",
    async () => {
      const uid = (await s.stack.outputs()).uid!.value as string;
      params.frozen = true;
      expect((await s.stack.up()).outputs.status.value).toBe("frozen");
      const st = await api<{ status: string }>(server, "GET", `/orgs/demo/workloads/${uid}/state`);
      expect(st.status).toBe("frozen");
      params.frozen = false;
      expect((await s.stack.up()).outputs.status.value).toBe("running");
      const alive = await exec(server, uid, "kill -0 $(cat /tmp/sleeper.pid) && echo alive");
      expect(alive.stdout.trim()).toBe("alive");
    },
    STEP_MS,
  );

  it(
    "replaces the sandbox when its template changes",
    async () => {
      const before = (await s.stack.outputs()).uid!.value as string;
      params.template = "tpl-ubuntu-desktop";
      const up = await s.stack.up();
      expect(up.summary.resourceChanges?.replace).toBeGreaterThanOrEqual(1);
      expect(up.outputs.uid.value).not.toBe(before);
    },
    STEP_MS,
  );

  it(
    "destroys parent and fork",
    async () => {
      await s.stack.destroy();
      expect((await liveResources(server)).workloads).toEqual([]);
    },
    STEP_MS,
  );
});
