// Clients behind one rate gate against the reference server's rate limit: they wait, not retry.
import { afterEach, describe, expect, it } from "vitest";
import { RateGate, withRetryBudget } from "../../client/index.ts";
import { admin } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { testClient } from "./fixtures.ts";

const server = useTestServer({ each: "reset" });

interface Limit {
  rate_limited: number;
}
const setLimit = (rps: number, burst: number) =>
  admin(server, "PUT", "/orgs/demo/rate-limit", { rps, burst });
const refused = async () => (await admin<Limit>(server, "GET", "/orgs/demo/rate-limit")).rate_limited;

describe("clients sharing a rate gate under the service's rate limit", () => {
  afterEach(() => admin(server, "DELETE", "/orgs/demo/rate-limit"));

  it("spend a burst of parallel requests waiting together: every one succeeds, few are refused", async () => {
    await setLimit(20, 20);
    const gate = new RateGate();
    const clients = [testClient(server, { rateGate: gate }), testClient(server, { rateGate: gate })];
    const budget = { deadline: Date.now() + 60_000 };
    const calls = Array.from({ length: 60 }, (_, i) =>
      withRetryBudget(budget, () => clients[i % 2]!.sshKeys.list()),
    );
    const answers = await Promise.all(calls);
    expect(answers).toHaveLength(60);
    const stats = gate.stats();
    // The first burst finds the limit (more were in flight than the service had tokens for);
    // from then on the copy of the service's bucket paces them.
    expect(stats.rateLimited).toBe(await refused());
    expect(stats.rateLimited).toBeLessThanOrEqual(6);
    expect(stats.sent).toBe(60 + stats.rateLimited);
    expect(stats.learnedRate).toBeGreaterThan(0);
    await Promise.all(clients.map((c) => c.close()));
  });

  it("maxRequestsPerSecond below the service's limit: nothing is refused", async () => {
    await setLimit(20, 20);
    const client = testClient(server, { maxRequestsPerSecond: 10 });
    await Promise.all(Array.from({ length: 15 }, () => client.sshKeys.list()));
    expect(await refused()).toBe(0);
    await client.close();
  });

  it("without a gate each request finds the limit on its own", async () => {
    await setLimit(5, 5);
    const client = testClient(server, { maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 15 }, () => client.sshKeys.list()));
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(10);
    await client.close();
  });
});
