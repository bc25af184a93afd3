// Inventory capacity at run time: the admin API (GET /admin/inventory, PUT
// /admin/inventory/{resource_name}), `cws inventory` and the dashboard's JSON.
import { describe, expect, it } from "vitest";
import { inspectCommand } from "../../cli/cws-command.ts";
import { admin, adminCall, call, expectError, request } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { bm, create, deployed, rental } from "./fixtures.ts";

const server = useTestServer({ each: "reset", provisionDelayMs: 10 });

interface Stock {
  name: string;
  capacity: number | null;
  source: string;
  in_use: number;
  free: number | null;
  region: string | null;
}
const inventory = async () => (await admin<{ items: Stock[] }>(server, "GET", "/inventory")).items;
const item = async (name: string) => (await inventory()).find((i) => i.name === name)!;
const deploy = (uid: string) => call(server, "POST", `/orgs/demo/workloads/${uid}/deploy`);

describe("inventory capacity through the admin API", () => {
  it("lists every resource with its capacity, the units in use and those free", async () => {
    await deployed(server, rental({ name: "inv-a" }));
    const items = await inventory();
    expect(items.map((i) => i.name)).toContain("bm-h100-8x");
    expect(items.find((i) => i.name === "gpu-rental-small")).toEqual({
      name: "gpu-rental-small",
      type: "rental",
      display_name: "1x L4, 8 vCPU, 32 GiB",
      region: null,
      capacity: 100,
      source: "seed",
      in_use: 1,
      free: 99,
    });
    expect(items.find((i) => i.name === "bm-h100-8x")).toMatchObject({ region: "us-east-1", capacity: 2 });
  });

  it("sells a resource out and restocks it: deploys are refused, then taken again", async () => {
    const sold = await admin<Stock>(server, "PUT", "/inventory/gpu-rental-small", { capacity: 0 });
    expect(sold).toMatchObject({ capacity: 0, source: "admin", in_use: 0, free: 0 });
    const w = await create(server, rental({ name: "inv-b" }));
    expectError(await deploy(w.uid), 409, "WORKLOAD_NO_CAPACITY");
    await admin(server, "PUT", "/inventory/gpu-rental-small", { capacity: 1 });
    expect((await deploy(w.uid)).status).toBe(200);
    expect(await item("gpu-rental-small")).toMatchObject({ capacity: 1, in_use: 1, free: 0 });

    // The seed's capacity back (null), and after an admin reset.
    expect(await admin(server, "PUT", "/inventory/gpu-rental-small", { capacity: null })).toMatchObject({
      capacity: 100,
      source: "seed",
    });
    await admin(server, "PUT", "/inventory/gpu-rental-medium", { capacity: 3 });
    await admin(server, "POST", "/reset");
    expect(await item("gpu-rental-medium")).toMatchObject({ capacity: 50, source: "seed" });
  });

  it("sells a region's bare metal out: BM deploys are refused with WORKLOAD_BM_CLAIM_CONFLICT", async () => {
    await admin(server, "PUT", "/inventory/bm-h100-8x", { capacity: 0 });
    const w = await create(server, await bm(server, { name: "inv-metal" }));
    expectError(await deploy(w.uid), 409, "WORKLOAD_BM_CLAIM_CONFLICT");
  });

  it("refuses an unknown resource (404), a bad body (400) and a missing admin token (401)", async () => {
    expectError(
      await adminCall(server, "PUT", "/inventory/gpu-nope", { capacity: 1 }),
      404,
      "INVENTORY_NOT_FOUND",
    );
    expectError(
      await adminCall(server, "PUT", "/inventory/gpu-nope", { capacity: "x" }),
      404,
      "INVENTORY_NOT_FOUND",
    );
    for (const body of [{ capacity: -1 }, { capacity: 1.5 }, {}, { capacity: 1, extra: true }])
      expectError(await adminCall(server, "PUT", "/inventory/gpu-rental-small", body), 400, "ADMIN_INVALID");
    expect((await request(`${server.adminUrl}/inventory`, "GET", undefined, { token: null })).status).toBe(
      401,
    );
  });
});

describe("cws inventory and the dashboard", () => {
  async function cws(args: string[]) {
    let stdout = "";
    let stderr = "";
    const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
    const code = await inspectCommand("inventory", [...args, "--url", server.baseUrl], io, "(help)\n");
    return { code, stdout, stderr };
  }

  it("cws inventory sets capacities and lists them, as a table and as JSON", async () => {
    const table = await cws(["--set", "gpu-rental-large=0", "--set", "vm-gpu=3"]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^RESOURCE\s+TYPE\s+REGION\s+IN USE\s+CAPACITY\s+FREE$/);
    expect(lines.find((l) => l.startsWith("gpu-rental-large"))).toMatch(
      /rental\s+any\s+0\s+0 \(admin\)\s+sold out$/,
    );
    expect(lines.find((l) => l.startsWith("vm-gpu"))).toMatch(/3 \(admin\)\s+3$/);
    expect(lines.find((l) => l.startsWith("bm-h100-8x"))).toMatch(/us-east-1\s+0\s+2\s+2$/);

    const json = await cws(["--set", "gpu-rental-large=seed", "--json"]);
    const items = JSON.parse(json.stdout) as Stock[];
    expect(items.find((i) => i.name === "gpu-rental-large")).toMatchObject({ capacity: 1, source: "seed" });

    const bad = await cws(["--set", "gpu-rental-large=lots"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--set must be RESOURCE=N/);
    const unknown = await cws(["--set", "gpu-nope=1"]);
    expect(unknown).toMatchObject({ code: 1 });
    expect(unknown.stderr).toMatch(/404 \(INVENTORY_NOT_FOUND/);
  });

  it("the dashboard's JSON carries the inventory, for an org's token too", async () => {
    await admin(server, "PUT", "/inventory/vm-standard", { capacity: 7 });
    const res = await request<{ inventory: Stock[] }>(
      `${server.origin}/dashboard/api/orgs/demo`,
      "GET",
      undefined,
      {
        token: "demo-token",
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.inventory.find((i) => i.name === "vm-standard")).toMatchObject({
      capacity: 7,
      source: "admin",
      in_use: 0,
    });
  });
});
