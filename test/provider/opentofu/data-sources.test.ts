/**
 * The workload reads as OpenTofu's data sources (cws_workload, cws_workload_events,
 * cws_workload_logs), called as OpenTofu calls them: validation naming the attribute and its rule
 * (and waiting for values not known yet), and reads whose state holds the argument given and what
 * the service has, its texts redacted.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dataSourcesOf } from "../../../provider/opentofu/tf-schema.ts";
import { UNKNOWN_VALUE, type MsgValue } from "../../../provider/opentofu/msgpack.ts";
import { DEMO_TOKEN } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { testClient } from "../../client/fixtures.ts";
import { SCHEMA, dv, tofuProvider, undv, type Diag, type Obj } from "./fixture.ts";

const server = useTestServer({ provisionDelayMs: 10 });
const provider = tofuProvider();
const ENV_SECRET = "env-secret-0c7a21";
let uid: string;

/** A data source's config block: every attribute null unless given. */
function config(type: string, values: Record<string, MsgValue>) {
  const ds = dataSourcesOf(SCHEMA).find((d) => d.typeName === type)!;
  return dv({ ...Object.fromEntries(ds.attributes.map((a) => [a.name, null])), ...values });
}

const read = (type: string, values: Record<string, MsgValue>) =>
  provider.readDataSource({ type_name: type, config: config(type, values) }) as Promise<{
    state?: { msgpack: Buffer };
    diagnostics: Diag[];
  }>;

beforeAll(async () => {
  provider.configureProvider({
    config: dv({ endpoint: server.baseUrl, org: "demo", api_token: DEMO_TOKEN }),
  });
  const client = testClient(server);
  ({ uid } = await client.workloads.create({
    type: "RENTAL",
    name: "tf-read",
    image: "nginx:1.27",
    resource_name: "gpu-rental-small",
    envs: [{ name: "DB_PASSWORD", value: ENV_SECRET }],
  }));
  await client.workloads.deploy(uid);
  await client.workloads.waitForStatus(uid, "running", { timeoutMs: 10_000 });
  await client.close();
});

describe("the workload data sources", () => {
  it("read a workload by name into one uid attribute, and its events and log lines", async () => {
    const one = await read("cws_workload", { name: "tf-read" });
    expect(one.diagnostics).toEqual([]);
    expect(undv(one.state)).toMatchObject({
      uid,
      name: "tf-read",
      status: "running",
      resource_name: "gpu-rental-small",
      envs: [{ name: "DB_PASSWORD", value: ENV_SECRET }],
    });
    const events = undv((await read("cws_workload_events", { uid })).state)!.events as Obj[];
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(["Registered", "Deploy"]));
    const logs = undv((await read("cws_workload_logs", { uid, tail: 1, redact: ["nginx"] })).state)!;
    expect(logs).toMatchObject({ uid, tail: 1 });
    expect(logs.lines).toHaveLength(1);
    expect((logs.lines as string[])[0]).toMatch(/starting \[secret\]:1\.27$/);
  });

  it("names the attribute and its rule, and waits for values not known yet", () => {
    const validate = (type: string, values: Record<string, MsgValue>) =>
      (
        provider.validateDataResourceConfig({ type_name: type, config: config(type, values) }) as {
          diagnostics: Diag[];
        }
      ).diagnostics;
    const both = validate("cws_workload", { uid: "wl-1", name: "web" });
    expect(both.map((d) => [d.attribute?.steps[0]?.attribute_name, d.detail])).toEqual([
      ["name", expect.stringContaining("give exactly one of uid and name (both given)")],
    ]);
    expect(validate("cws_workload_logs", { uid: "wl-1", tail: -1 })[0]?.detail).toContain(
      "tail must be a non-negative integer",
    );
    expect(validate("cws_workload_events", {})[0]?.detail).toContain("uid is required");
    // A uid another resource makes is unknown at plan: nothing is missing yet.
    expect(validate("cws_workload_events", { uid: UNKNOWN_VALUE })).toEqual([]);
    expect(validate("cws_workload", { uid: UNKNOWN_VALUE })).toEqual([]);
  });
});
