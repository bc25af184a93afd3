// What a deploy may take (server/workloads/capacity.ts, server/common/billing.ts): bare metal's region-scoped
// claims and rules, inventory capacity and org credits.
import { describe, expect, it } from "vitest";
import { adminCall, call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { bm, create, rental, waitForStatus } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

describe("bare metal", () => {
  it.each([
    ["without region", { region: undefined }, 400, "WORKLOAD_BM_REGION_REQUIRED"],
    ["with an invalid region slug", { region: "US_EAST" }, 400, "WORKLOAD_BM_REGION_INVALID"],
    ["without SSH keys", { ssh_keys: [] }, 400, "WORKLOAD_BM_SSH_KEYS_REQUIRED"],
    ["with an invalid hostname", { bm_config: { hostname: "-bad-" } }, 400, "WORKLOAD_BM_HOSTNAME_INVALID"],
    ["in an inactive region", { region: "ap-south-1" }, 409, "WORKLOAD_BM_REGION_NOT_FOUND"],
    ["in an unknown region", { region: "mars-1" }, 409, "WORKLOAD_BM_REGION_NOT_FOUND"],
    ["with an unknown image", { image: "beos" }, 404, "WORKLOAD_BM_TARGET_NOT_FOUND"],
    ["with an unknown reservation", { reservation_uid: "res-nope" }, 404, "WORKLOAD_BM_TARGET_NOT_FOUND"],
    [
      "with another org's reservation",
      { reservation_uid: "res-other-bm" },
      404,
      "WORKLOAD_BM_TARGET_NOT_FOUND",
    ],
    [
      "with a reservation in another region",
      { reservation_uid: "res-bm-euw1" },
      409,
      "WORKLOAD_BM_RESERVATION_REGION_MISMATCH",
    ],
    ["with envs", { envs: [{ name: "A", value: "1" }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    ["with ports", { ports: [{ port: 2000 }] }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
    ["with experiments", { experiments: { "reserved-gpu": true } }, 400, "WORKLOAD_FIELD_UNSUPPORTED"],
  ])("refuses a BM workload %s", async (_l, over, status, reason) => {
    const body = await bm(s, over);
    expectError(await call(s, "POST", "/orgs/demo/workloads", body), status as number, reason as string);
  });

  it("claims region-scoped capacity in one attempt: 409 WORKLOAD_BM_CLAIM_CONFLICT, nothing claimed", async () => {
    const a = await create(s, await bm(s, { name: "a" }));
    const b = await create(s, await bm(s, { name: "b" }));
    const c = await create(s, await bm(s, { name: "c" }));
    const eu = await create(s, await bm(s, { name: "eu", region: "eu-west-1" }));
    expect((await call(s, "POST", `/orgs/demo/workloads/${a.uid}/deploy`)).status).toBe(200);
    expect((await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`)).status).toBe(200);
    expect(
      expectError(
        await call(s, "POST", `/orgs/demo/workloads/${c.uid}/deploy`),
        409,
        "WORKLOAD_BM_CLAIM_CONFLICT",
      ),
    ).toContain("nothing was claimed");
    expect((await call(s, "GET", `/orgs/demo/workloads/${c.uid}/state`)).body.status).toBe("registered");
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${eu.uid}/deploy`),
      409,
      "WORKLOAD_BM_CLAIM_CONFLICT",
    );
    // reservations bypass the shared pool
    const r = await create(s, await bm(s, { name: "reserved", reservation_uid: "res-bm-use1" }));
    expect((await call(s, "POST", `/orgs/demo/workloads/${r.uid}/deploy`)).status).toBe(200);
    // deleting frees capacity
    await call(s, "DELETE", `/orgs/demo/workloads/${a.uid}`);
    expect((await call(s, "POST", `/orgs/demo/workloads/${c.uid}/deploy`)).status).toBe(200);
    const g = await call(s, "GET", `/orgs/demo/workloads/${c.uid}`);
    expect(g.body.bm_config).toEqual({ region: "us-east-1", hostname: "c" });
  });

  it("refuses reboot and suspend for BM, and keeps at least one SSH key", async () => {
    const body = await bm(s);
    const w = await create(s, body);
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/reboot`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    expectError(
      await call(s, "POST", `/orgs/demo/workloads/${w.uid}/suspend`),
      400,
      "WORKLOAD_OPERATION_UNSUPPORTED",
    );
    expectError(
      await call(s, "DELETE", `/orgs/demo/workloads/${w.uid}/ssh-keys/${(body.ssh_keys as string[])[0]}`),
      400,
      "WORKLOAD_BM_SSH_KEYS_REQUIRED",
    );
  });
});

describe("capacity and credits", () => {
  it("refuses a deploy beyond inventory capacity with 409 WORKLOAD_NO_CAPACITY, until capacity is freed", async () => {
    const a = await create(s, rental({ name: "a", resource_name: "gpu-rental-large" }));
    const b = await create(s, rental({ name: "b", resource_name: "gpu-rental-large" }));
    await call(s, "POST", `/orgs/demo/workloads/${a.uid}/deploy`);
    expectError(await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`), 409, "WORKLOAD_NO_CAPACITY");
    await waitForStatus(s, a.uid, "running");
    await call(s, "POST", `/orgs/demo/workloads/${a.uid}/suspend`);
    expect((await call(s, "POST", `/orgs/demo/workloads/${b.uid}/deploy`)).status).toBe(200);
  });

  it("refuses a deploy when the org's credits are below one hour of cost", async () => {
    const w = await create(s, rental());
    await adminCall(s, "POST", "/orgs/demo/credits", { balance: 0.5 });
    expect(
      expectError(
        await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`),
        409,
        "WORKLOAD_INSUFFICIENT_CREDITS",
      ),
    ).toContain("0.8");
    await adminCall(s, "POST", "/orgs/demo/credits", { balance: 10 });
    expect((await call(s, "POST", `/orgs/demo/workloads/${w.uid}/deploy`)).status).toBe(200);
  });
});
