// Sandboxes whose deploy finds no capacity (503): retried within the create's timeout (and its
// waitForCapacity), then kept.
import { afterAll, describe, expect, it } from "vitest";
import { CwsClient } from "../../client/index.ts";
import { PartialStateError, type Context } from "../../provider/core/types.ts";
import { resourceModule } from "../../provider/registry.ts";
import { admin, DEMO_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";

const server = useTestServer({ each: "clear-faults" });
const clients: CwsClient[] = [];
afterAll(() => Promise.all(clients.map((c) => c.close())));

function ctx(timeoutMs: number): Context {
  const client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: DEMO_TOKEN });
  clients.push(client);
  return { client, log: () => {}, timeoutMs };
}

const noCapacity = (count: number) =>
  admin(server, "POST", "/faults", {
    method: "POST",
    path: "^/orgs/demo/workloads/[^/]+/deploy$",
    status: 503,
    reason: "WORKLOAD_SANDBOX_NO_CAPACITY",
    count,
  });

const sandbox = resourceModule("Sandbox");
const inputs = (name: string) => ({ name, template: "tpl-ubuntu-headless" });

describe("a sandbox deploy answered 503 for capacity", () => {
  it("is retried within the create's timeout, and the sandbox comes up", async () => {
    await noCapacity(3);
    const { id, outputs } = await sandbox.create(ctx(120_000), inputs("cap-retried"));
    expect(outputs.status).toBe("running");
    await sandbox.delete(ctx(60_000), id, outputs);
  }, 180_000);

  it("is retried for waitForCapacity at most, however long the create's timeout", async () => {
    await noCapacity(1_000);
    const t0 = Date.now();
    const err = await sandbox.create(ctx(120_000), { ...inputs("cap-bounded"), waitForCapacity: "1s" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(err).toBeInstanceOf(PartialStateError);
    const partial = err as PartialStateError;
    expect(partial.message).toMatch(/WORKLOAD_SANDBOX_NO_CAPACITY/);
    expect(partial.properties.status).toBe("registered");
    await admin(server, "DELETE", "/faults");
    await sandbox.delete(ctx(60_000), partial.id, partial.properties);
  }, 60_000);

  it("past the timeout, fails naming the reason and keeps the registered sandbox", async () => {
    await noCapacity(1_000);
    const err = await sandbox.create(ctx(2_000), inputs("cap-refused")).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PartialStateError);
    const partial = err as PartialStateError;
    expect(partial.message).toMatch(
      /did not come up: the service refused to deploy it: no sandbox capacity was free before the timeout \(WORKLOAD_SANDBOX_NO_CAPACITY: .*\)\. It stays registered/,
    );
    expect(partial.properties.status).toBe("registered");
    await admin(server, "DELETE", "/faults");
    await sandbox.delete(ctx(60_000), partial.id, partial.properties);
  }, 180_000);
});
