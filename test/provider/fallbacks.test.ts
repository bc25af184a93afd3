// A workload's create with fallbacks and a wait for capacity (provider/resources/workload/place.ts)
// against the reference server, whose admin API sells inventory out and restocks it.
import { afterAll, describe, expect, it } from "vitest";
import { CwsClient } from "../../client/index.ts";
import { PartialStateError, type Context, type Props } from "../../provider/core/types.ts";
import { resourceModule } from "../../provider/registry.ts";
import { admin, api, DEMO_TOKEN } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { createSshKey } from "../server/fixtures.ts";

const server = useTestServer({ each: "reset" });
const clients: CwsClient[] = [];
afterAll(() => Promise.all(clients.map((c) => c.close())));
const workload = resourceModule("Workload");

/** A context whose notices and status lines are kept. */
function ctx(timeoutMs = 60_000) {
  const client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: DEMO_TOKEN });
  clients.push(client);
  const said = { notices: [] as string[], statuses: [] as string[] };
  const c: Context = {
    client,
    log: () => {},
    notice: (m) => void said.notices.push(m),
    status: (m) => void said.statuses.push(m),
    timeoutMs,
  };
  return { ctx: c, said };
}

const stock = (capacities: Record<string, number | null>) =>
  Promise.all(
    Object.entries(capacities).map(([name, capacity]) =>
      admin(server, "PUT", `/inventory/${name}`, { capacity }),
    ),
  );

/** The org's workloads named `name`: live, and deleted (registrations a create left behind and removed). */
async function named(name: string) {
  type Page = { items: { uid: string; resource: { name: string }; state: { status: string } }[] };
  const live = await api<Page>(server, "GET", `/orgs/demo/workloads?name=${name}`);
  const deleted = await api<Page>(server, "GET", `/orgs/demo/workloads?name=${name}&status=deleted`);
  return { live: live.items, deleted: deleted.items.length };
}

const gpu = (name: string, more: Props = {}): Props => ({
  type: "RENTAL",
  name,
  image: "nginx:1.27",
  resourceName: "gpu-rental-large",
  fallbackResourceNames: ["gpu-rental-medium"],
  ...more,
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

describe("a create with fallbacks", () => {
  it("lands on the next candidate when the first is sold out, says so, and leaves one workload", async () => {
    await stock({ "gpu-rental-large": 0 });
    const { ctx: c, said } = ctx();
    const inputs = gpu("fb-next");
    const { id, outputs } = await workload.create(c, inputs);
    expect(outputs).toMatchObject({
      resourceName: "gpu-rental-large",
      placedResourceName: "gpu-rental-medium",
      status: "running",
    });
    expect(said.notices).toEqual(["gpu-rental-large: no capacity; placed on gpu-rental-medium"]);
    const { live, deleted } = await named("fb-next");
    expect(live.map((w) => [w.uid, w.resource.name])).toEqual([[id, "gpu-rental-medium"]]);
    expect(deleted).toBe(1);

    // Refresh keeps the program's first choice even once it has capacity again: nothing moves back.
    await stock({ "gpu-rental-large": null });
    const read = await workload.read(c, id, outputs);
    expect(read?.inputs).toMatchObject({ resourceName: "gpu-rental-large" });
    expect(read?.outputs).toMatchObject({ placedResourceName: "gpu-rental-medium" });
    expect(workload.diff(id, read!.outputs, inputs).changes).toBe(false);
    // A lookup (import) reads what the service has.
    expect((await workload.read(c, id, {}))?.inputs).toMatchObject({ resourceName: "gpu-rental-medium" });
  });

  it("falls back to a BM workload's next region", async () => {
    const key = await createSshKey(server, "fb-key");
    const { ctx: c, said } = ctx();
    const { outputs } = await workload.create(c, {
      type: "BM",
      name: "fb-metal",
      image: "ubuntu-22.04-cuda",
      resourceName: "bm-h100-8x",
      region: "eu-west-1",
      fallbackRegions: ["us-east-1"],
      sshKeys: [key],
    });
    expect(outputs).toMatchObject({ region: "eu-west-1", placedRegion: "us-east-1", status: "running" });
    expect(said.notices).toEqual([
      "bm-h100-8x in eu-west-1: no bare-metal capacity; placed on bm-h100-8x in us-east-1",
    ]);
    expect((await named("fb-metal")).live).toHaveLength(1);
  });

  it("without a wait, fails naming every candidate and its reason, with nothing left registered", async () => {
    await stock({ "gpu-rental-large": 0, "gpu-rental-medium": 0 });
    const err = await failure(workload.create(ctx().ctx, gpu("fb-none")));
    expect(err).not.toBeInstanceOf(PartialStateError);
    expect(err?.message).toMatch(
      /^no candidate had capacity: gpu-rental-large: no capacity left for resource gpu-rental-large \(0 of 0 in use\) \(WORKLOAD_NO_CAPACITY\); gpu-rental-medium: .* \(WORKLOAD_NO_CAPACITY\)\. Nothing is left registered: the next run tries gpu-rental-large first again; waitForCapacity makes a create wait for capacity$/,
    );
    expect(await named("fb-none")).toEqual({ live: [], deleted: 2 });
  });

  it("with a wait, tries again until a restock lets it through, showing its progress on the status line", async () => {
    await stock({ "gpu-rental-large": 0, "gpu-rental-medium": 0 });
    const { ctx: c, said } = ctx();
    const created = workload.create(c, gpu("fb-wait", { waitForCapacity: "1m" }));
    while ((await named("fb-wait")).deleted < 2) await new Promise((r) => setTimeout(r, 50));
    await stock({ "gpu-rental-medium": 1 });
    const { outputs } = await created;
    expect(outputs).toMatchObject({ placedResourceName: "gpu-rental-medium", status: "running" });
    expect(said.statuses[0]).toMatch(
      /^waiting for capacity \(gpu-rental-large: no capacity; gpu-rental-medium: no capacity\): trying again in 1s, \d+s left of waitForCapacity$/,
    );
    expect(said.notices).toEqual([
      expect.stringMatching(
        /^gpu-rental-large: no capacity; waited \d+s for capacity; placed on gpu-rental-medium$/,
      ),
    ]);
    expect((await named("fb-wait")).live).toHaveLength(1);
  });

  it("stops waiting when the wait, or the create's timeout before it, runs out", async () => {
    await stock({ "gpu-rental-large": 0, "gpu-rental-medium": 0 });
    const t0 = Date.now();
    const err = await failure(workload.create(ctx().ctx, gpu("fb-out", { waitForCapacity: "2s" })));
    expect(err?.message).toMatch(
      /^no candidate had capacity within 2s of waitForCapacity: gpu-rental-large: /,
    );
    const bounded = await failure(
      workload.create(ctx(1_500).ctx, gpu("fb-out2", { waitForCapacity: "10m" })),
    );
    expect(bounded?.message).toMatch(/^no candidate had capacity within 2s of waitForCapacity/);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect((await named("fb-out")).live).toEqual([]);
    expect((await named("fb-out2")).live).toEqual([]);
  });

  it("never moves on for credits: the reason is said and the workload stays registered on its first choice", async () => {
    await admin(server, "POST", "/orgs/demo/credits", { balance: 10 });
    const err = await failure(
      workload.create(ctx().ctx, gpu("fb-rich", { fallbackResourceNames: ["gpu-rental-small"] })),
    );
    expect(err).toBeInstanceOf(PartialStateError);
    expect(err?.message).toMatch(
      /was registered but did not come up: the service refused to deploy it: the org has too few credits \(WORKLOAD_INSUFFICIENT_CREDITS: /,
    );
    expect((err as PartialStateError).properties).toMatchObject({
      placedResourceName: "gpu-rental-large",
      status: "registered",
    });
    expect(await named("fb-rich")).toMatchObject({
      deleted: 0,
      live: [{ resource: { name: "gpu-rental-large" } }],
    });
  });

  it("never moves on for a candidate the service does not take, leaving nothing registered", async () => {
    await stock({ "gpu-rental-large": 0 });
    const err = await failure(
      workload.create(
        ctx().ctx,
        gpu("fb-bad", { fallbackResourceNames: ["vm-standard", "gpu-rental-medium"] }),
      ),
    );
    expect(err?.message).toMatch(
      /WORKLOAD_RESOURCE_TYPE_MISMATCH: resource_name vm-standard is a vm resource/,
    );
    expect((await named("fb-bad")).live).toEqual([]);
  });

  it("without fallbacks keeps a capacity refusal registered, as always; with deploy false registers the first choice", async () => {
    await stock({ "gpu-rental-large": 0 });
    const plain = { ...gpu("fb-plain"), fallbackResourceNames: undefined };
    const err = await failure(workload.create(ctx().ctx, plain));
    expect(err).toBeInstanceOf(PartialStateError);
    expect(err?.message).toMatch(/no capacity is left for its resource \(WORKLOAD_NO_CAPACITY/);
    const { outputs } = await workload.create(ctx().ctx, gpu("fb-later", { deploy: false }));
    expect(outputs).toMatchObject({ placedResourceName: "gpu-rental-large", status: "registered" });
  });
});
