// SANDBOX workloads registered and patched through WorkloadService (server/workloads/service.ts,
// server/workloads/checks.ts), without deploying them: what a template fixes, what a sandbox
// refuses, what PATCH may change.
import { describe, expect, it } from "vitest";
import { Workload } from "../../api/index.ts";
import { call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { createSshKey, putSandboxTemplate } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

describe("sandbox workloads (without the sandbox runtime)", () => {
  const sandbox = (over: Record<string, unknown> = {}) => ({
    type: "SANDBOX",
    name: "box",
    image: "tpl-ubuntu-headless",
    ...over,
  });

  it("registers a sandbox from a READY template; the template fixes the shape", async () => {
    const c = await call(
      s,
      "POST",
      "/orgs/demo/workloads",
      sandbox({ sandbox_config: { ttl_sec: 3600, idle_timeout_sec: 600 }, ports: [{ port: 3000 }] }),
    );
    expect(c.status).toBe(201);
    expect(c.body.state.status).toBe("registered");
    expect(c.body.resource.name).toBe("sandbox-small");
    const w = Workload.parse((await call(s, "GET", `/orgs/demo/workloads/${c.body.uid}`)).body);
    expect(w.sandbox_config).toEqual({
      template_uid: "tpl-ubuntu-headless",
      ttl_sec: 3600,
      idle_timeout_sec: 600,
    });
    expect(w.frozen_cost_per_hour).toBe(0.004);
    expect(w.ports).toEqual([{ port: 3000, protocol: "TCP" }]);
  });

  it.each([
    ["an unknown template", { image: "tpl-nope" }, 404, "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND"],
    ["port 22", { ports: [{ port: 22 }] }, 400, "INVALID_BODY"],
    ["port routing", { ports: [{ port: 3000, routing: "DIRECT" }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    [
      "idle >= ttl",
      { sandbox_config: { ttl_sec: 60, idle_timeout_sec: 60 } },
      400,
      "WORKLOAD_SANDBOX_TIMEOUTS_INVALID",
    ],
    ["a trailing hyphen", { name: "box-" }, 400, "WORKLOAD_NAME_INVALID"],
    ["envs", { envs: [{ name: "A", value: "1" }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    ["a non-sandbox resource", { resource_name: "gpu-rental-small" }, 404, "WORKLOAD_RESOURCE_TYPE_MISMATCH"],
  ])("refuses a sandbox with %s", async (_l, over, status, reason) => {
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", sandbox(over)),
      status as number,
      reason as string,
    );
  });

  it("refuses a template that is not READY with 409", async () => {
    putSandboxTemplate(s, { uid: "stpl-pending", org: "demo", status: "PENDING", name: "p" });
    expectError(
      await call(s, "POST", "/orgs/demo/workloads", sandbox({ image: "stpl-pending" })),
      409,
      "WORKLOAD_SANDBOX_TEMPLATE_NOT_READY",
    );
  });

  it("updates only name, project_id, ssh_keys, ports and timeouts, without redeploy", async () => {
    const c = (await call(s, "POST", "/orgs/demo/workloads", sandbox())).body;
    const key = await createSshKey(s);
    const p = await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, {
      name: "box2",
      ssh_keys: [key],
      sandbox_config: { ttl_sec: 100 },
      project_id: "p",
    });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({
      name: "box2",
      ssh_keys: [key],
      project_id: "p",
      revision: c.revision,
      sandbox_config: { ttl_sec: 100, idle_timeout_sec: 0 },
    });
    for (const [field, body] of [
      ["image", { image: "tpl-ubuntu-desktop" }],
      ["envs", { envs: [] }],
      ["resource_name", { resource_name: "sandbox-small" }],
      ["sandbox_config.template_uid", { sandbox_config: { template_uid: "x" } }],
    ] as const) {
      expect(
        expectError(
          await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, body),
          400,
          "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD",
        ),
      ).toContain(field);
    }
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, { sandbox_config: { idle_timeout_sec: 200 } }),
      400,
      "WORKLOAD_SANDBOX_TIMEOUTS_INVALID",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/workloads/${c.uid}`, { ports: [{ port: 22 }] }),
      400,
      "INVALID_BODY",
    );
  });

  it("refuses suspend for a sandbox and deletes a registered one", async () => {
    const c = (await call(s, "POST", "/orgs/demo/workloads", sandbox())).body;
    expect((await call(s, "GET", `/orgs/demo/workloads/${c.uid}/state`)).body.status).toBe("registered");
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${c.uid}/suspend`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    expect((await call(s, "DELETE", `/orgs/demo/workloads/${c.uid}`)).status).toBe(204);
  });
});
