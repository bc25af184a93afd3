import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ApiError, NEXT, type ServerContext } from "../../server/index.ts";
import { adminCall, call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { create, rental, waitForStatus } from "./fixtures.ts";

/** A stand-in sandbox module, plugged in the way server/sandbox/routes/index.ts will be. */
const calls: string[] = [];
let refuseNext = false;
let failNext = false;
function fakeSandboxModule(ctx: ServerContext): void {
  const { lifecycle, router } = ctx;
  lifecycle.hooks.admitDeploy = (w) => {
    calls.push(`admit ${w.uid}`);
    if (refuseNext) {
      refuseNext = false;
      throw new ApiError("WORKLOAD_SANDBOX_NO_CAPACITY", "all sandboxes busy");
    }
  };
  lifecycle.hooks.onDeploy = async (w) => {
    calls.push(`deploy ${w.uid}`);
    await new Promise((r) => setTimeout(r, 10));
    if (failNext) {
      failNext = false;
      throw new Error("bwrap failed to start");
    }
  };
  lifecycle.hooks.onDelete = (w) => void calls.push(`delete ${w.uid}`);
  lifecycle.hooks.onUpdate = (before, after) => void calls.push(`update ${before.name}->${after.name}`);
  router.post(
    "/orgs/:org/workloads/:uid/exec",
    async (rc) => {
      const w = ctx.store.workloads.getIn(rc.org, rc.params.uid!);
      if (!w || w.type !== "SANDBOX") return NEXT;
      const body = (await rc.json()) as { cmd: string };
      return { status: 200, body: { stdout: `ran ${body.cmd}`, stderr: "", code: 0, timed_out: false } };
    },
    { first: true },
  );
  router.post("/orgs/:org/workloads/:uid/freeze", (rc) => {
    const w = ctx.store.workloads.getIn(rc.org, rc.params.uid!)!;
    lifecycle.transition(w, "frozen", { reason: "Freeze", message: "frozen" });
    return { status: 200, body: { status: w.status } };
  });
  ctx.onUpgrade((req, socket, head, path) => {
    if (!/^\/orgs\/[^/]+\/workloads\/[^/]+\/terminals\/[^/]+\/ws$/.test(path)) return false;
    ctx.wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("message", (m) => ws.send(`echo:${m.toString()}`));
    });
    return true;
  });
}

const s = useTestServer({ extensions: [fakeSandboxModule] });

const sandbox = { type: "SANDBOX", name: "box", image: "tpl-ubuntu-headless" };

describe("extension hooks (sandbox module)", () => {
  it("runs SANDBOX deploys through onDeploy and deletes through onDelete", async () => {
    const w = await create(s, sandbox);
    const d = await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    expect(d.body.state.status).toBe("provisioning");
    await waitForStatus(s, w.uid, "running");
    expect(calls).toContain(`deploy ${w.uid}`);
    await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}`);
    expect(calls).toContain(`delete ${w.uid}`);
  });

  it("lets admitDeploy refuse without changing anything, and onDeploy failures end in error", async () => {
    const w = await create(s, sandbox);
    refuseNext = true;
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`),
      503,
      "WORKLOAD_SANDBOX_NO_CAPACITY",
    );
    expect((await call(s, "GET", `/orgs/demo/workloads/${w.uid}/state`)).body.status).toBe("registered");
    failNext = true;
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    expect((await waitForStatus(s, w.uid, "error")).message).toBe("bwrap failed to start");
  });

  it("applies admin provisioning errors to sandboxes too", async () => {
    await adminCall(s, "POST", "/orgs/demo/provisioning", {
      name: "doomed",
      outcome: "error",
      message: "no host",
    });
    const w = await create(s, { ...sandbox, name: "doomed" });
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    expect((await waitForStatus(s, w.uid, "error")).message).toBe("no host");
    expect(calls).not.toContain(`deploy ${w.uid}`);
    await adminCall(s, "DELETE", "/orgs/demo/provisioning");
  });

  it("calls onUpdate for sandbox PATCH and lets modules transition workloads", async () => {
    const w = await create(s, { ...sandbox, name: "upd" });
    await call(s, "PATCH", `/orgs/demo/workloads/${w.uid}`, { name: "upd2" });
    expect(calls).toContain("update upd->upd2");
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(s, w.uid, "running");
    expect((await call(s, "POST", `/orgs/demo/workloads/${w.uid}/freeze`)).body.status).toBe("frozen");
    const ev = (await call(s, "GET", `/orgs/demo/workloads/${w.uid}/events`)).body.items;
    expect(ev.at(-1)).toMatchObject({ new_status: "frozen", reason: "Freeze" });
  });

  it("routes sandbox exec to the module (first) and RENTAL exec to the built-in route (NEXT)", async () => {
    const sb = await create(s, { ...sandbox, name: "ex" });
    const r = await call(s, "POST", `/orgs/demo/workloads/${sb.uid}/exec`, { cmd: "ls" });
    expect(r.body).toEqual({ stdout: "ran ls", stderr: "", code: 0, timed_out: false });
    const w = await create(s, rental());
    await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`);
    await waitForStatus(s, w.uid, "running");
    expect((await call(s, "POST", `/orgs/demo/workloads/${w.uid}/exec?command=echo&command=hi`)).text).toBe(
      "hi\n",
    );
  });

  it("hands WebSocket upgrades to registered handlers and refuses others", async () => {
    const url = `${s.baseUrl.replace("http", "ws")}/orgs/demo/workloads/x/terminals/t1/ws`;
    const ws = new WebSocket(url);
    const reply = await new Promise<string>((resolve, reject) => {
      ws.on("open", () => ws.send("hello"));
      ws.on("message", (m) => resolve(m.toString()));
      ws.on("error", reject);
    });
    expect(reply).toBe("echo:hello");
    ws.close();
    const bad = new WebSocket(`${s.baseUrl.replace("http", "ws")}/nope`);
    const status = await new Promise<number>((resolve) =>
      bad
        .on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
        .on("error", () => resolve(-1)),
    );
    expect(status).toBe(404);
  });
});
