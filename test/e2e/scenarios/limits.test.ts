/**
 * Limits through every front end (dynamic, native, and the OpenTofu provider under OpenTofu and
 * Terraform), one batched stack each: a stack of 30 under a rate limit of 5 requests a second
 * applies, plans nothing more and destroys, with 16 resources at a time, the provider process's
 * requests waiting together at its rate gate; and a stack whose org runs short of credits part way
 * keeps the workloads the service refused in state as registered, with the reason, and the next
 * apply deploys them in place once credits are added.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admin } from "../../helpers/http.ts";
import { useTestServer, type TestServer } from "../../helpers/server.ts";
import { EMPTY_ORG, liveResources } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";
import { HCL_TOOLS } from "../../helpers/tofu.ts";
import { pulumiDriver, tofuDriver } from "./drivers.ts";
import type { Decl, Driver } from "./scenarios.ts";

const STEP_MS = 600_000;

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx limits@cws";

/** 10 keys, 10 volumes, 10 workloads each with a key and a volume. */
function thirty(): Record<string, Decl> {
  const d: Record<string, Decl> = {};
  for (let i = 0; i < 10; i++) {
    d[`k${i}`] = { kind: "SshKey", inputs: { name: `lim-k${i}`, publicKey: KEY } };
    d[`v${i}`] = {
      kind: "Volume",
      inputs: { name: `lim-v${i}`, sizeInMb: 256, resourceName: "gpu-rental-small" },
    };
    d[`w${i}`] = {
      kind: "Workload",
      inputs: {
        type: "RENTAL",
        name: `lim-w${i}`,
        image: "nginx:1.27",
        resourceName: "cpu-rental-small",
        sshKeys: [{ ref: `k${i}` }],
        volumes: [{ uid: { ref: `v${i}` }, mountPath: "/data" }],
      },
    };
  }
  return d;
}

/** Workloads at 0.05 USD/h (deployed with 1 USD of credits) and at 1.6 USD/h (refused). */
const CHEAP = ["c0", "c1", "c2"];
const DEAR = ["d0", "d1", "d2"];
function credits(): Record<string, Decl> {
  const w = (name: string, resourceName: string): Decl => ({
    kind: "Workload",
    inputs: { type: "RENTAL", name, image: "nginx:1.27", resourceName },
  });
  return {
    ...Object.fromEntries(CHEAP.map((n) => [n, w(`cr-${n}`, "cpu-rental-small")])),
    ...Object.fromEntries(DEAR.map((n) => [n, w(`cr-${n}`, "gpu-rental-medium")])),
  };
}

interface LimitsDriver {
  name: string;
  make: (server: TestServer, project: string) => Promise<Driver>;
}

const PULUMI_DRIVERS: LimitsDriver[] = FRONT_ENDS.map((fe) => ({
  name: fe.name,
  make: (server, project) => pulumiDriver(server, fe, `${project}-${fe.name}`),
}));
const HCL_DRIVERS: LimitsDriver[] = HCL_TOOLS.map((tool) => ({
  name: tool.name,
  make: (server) => tofuDriver(server, tool),
}));

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: Error) => e,
  );

function limits(fe: LimitsDriver): void {
  describe("under a rate limit of 5 requests a second", () => {
    const server = useTestServer({ rateLimit: { rps: 5, burst: 5 } });
    let driver: Driver;
    beforeAll(async () => {
      driver = await fe.make(server, "limits");
    }, STEP_MS);
    afterAll(async () => {
      await driver?.cleanup();
    });

    it(
      "applies a stack of 30 with 16 at a time, plans nothing more, and destroys it",
      async () => {
        await driver.apply(thirty(), { parallel: 16 });
        const live = await liveResources(server);
        expect(live.ssh_keys).toHaveLength(10);
        expect(live.volumes).toHaveLength(10);
        expect(live.workloads.filter((w) => w.state?.status === "running")).toHaveLength(10);
        const after = await driver.plan(thirty());
        expect(Object.values(after).every((v) => v === "same")).toBe(true);
        await driver.destroy({ parallel: 16 });
        expect(await liveResources(server)).toEqual(EMPTY_ORG);
        const { rate_limited } = await admin<{ rate_limited: number }>(
          server,
          "GET",
          "/orgs/demo/rate-limit",
        );
        // The gate paces each provider process to the limit (well over 100 requests were made):
        // refusals are the exception.
        expect(rate_limited).toBeLessThanOrEqual(6);
      },
      STEP_MS,
    );
  });

  describe("when credits run short part way", () => {
    const server = useTestServer();
    let driver: Driver;
    beforeAll(async () => {
      driver = await fe.make(server, "credits");
      await admin(server, "POST", "/orgs/demo/credits", { balance: 1 });
    }, STEP_MS);
    afterAll(async () => {
      await driver?.cleanup();
    });

    it(
      "keeps the refused workloads in state as registered with the reason, and deploys them in place once credits are added",
      async () => {
        const err = await failureOf(driver.apply(credits(), { continueOnError: true }));
        expect(err?.message).toMatch(/WORKLOAD_INSUFFICIENT_CREDITS/);
        expect(err?.message).toMatch(/the org has too few credits/);
        const state = await driver.outputs();
        for (const n of CHEAP) expect(state[n]).toMatchObject({ status: "running" });
        for (const n of DEAR) expect(state[n]).toMatchObject({ status: "registered" });
        const live = await liveResources(server);
        const uids = Object.fromEntries(DEAR.map((n) => [n, state[n]!.uid]));
        for (const n of DEAR)
          expect(live.workloads.find((w) => w.uid === uids[n])?.state?.status).toBe("registered");

        await admin(server, "POST", "/orgs/demo/credits", { balance: 1000 });
        await driver.keepFailed(DEAR);
        const plan = await driver.plan(credits());
        expect(plan).toEqual({
          ...Object.fromEntries(CHEAP.map((n) => [n, "same"])),
          ...Object.fromEntries(DEAR.map((n) => [n, "update"])),
        });
        await driver.apply(credits());
        const deployed = await driver.outputs();
        for (const n of DEAR) expect(deployed[n]).toMatchObject({ status: "running", uid: uids[n] });
        const again = await driver.plan(credits());
        expect(Object.values(again).every((v) => v === "same")).toBe(true);
        await driver.destroy();
        expect(await liveResources(server)).toEqual(EMPTY_ORG);
      },
      STEP_MS,
    );
  });
}

describe.each(PULUMI_DRIVERS)("limits ($name front end)", limits);
// Each HCL tool's runs (a server of their own each) spend most of their time waiting at the rate
// gate: OpenTofu's and Terraform's run side by side.
describe.concurrent.each(HCL_DRIVERS)("limits ($name front end)", limits);
