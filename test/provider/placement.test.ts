// A workload's placement (provider/resources/workload/placement.ts): the fallback inputs' check
// rules, the candidates a create tries, what a change of the lists does, and the words that say why.
import { describe, expect, it } from "vitest";
import { diffWords } from "../../provider/core/diff-words.ts";
import { UNKNOWN } from "../../provider/core/unknowns.ts";
import { RESOURCES } from "../../provider/registry.ts";
import { candidatesOf } from "../../provider/resources/workload/placement.ts";
import { roundPauseMs } from "../../provider/resources/workload/place.ts";

const Workload = RESOURCES.Workload!;
const Sandbox = RESOURCES.Sandbox!;

const gpu = {
  type: "RENTAL",
  name: "trainer",
  image: "nginx:1.27",
  resourceName: "gpu-rental-large",
  fallbackResourceNames: ["gpu-rental-medium"],
};
const bm = {
  type: "BM",
  name: "metal",
  image: "ubuntu-22.04-cuda",
  resourceName: "bm-h100-8x",
  region: "eu-west-1",
  fallbackRegions: ["us-east-1"],
  sshKeys: ["key-1"],
};
/** Last outputs of `inputs` placed on `placedResourceName` (and `placedRegion`). */
const placed = (inputs: object, placedResourceName: string, placedRegion?: string) => ({
  ...inputs,
  uid: "wl-1",
  status: "running",
  placedResourceName,
  ...(placedRegion ? { placedRegion } : {}),
});

describe("Workload placement inputs at check", () => {
  it("accepts fallbacks and a wait, for every type that has them", () => {
    expect(Workload.check({}, { ...gpu, waitForCapacity: "10m" }).failures).toEqual([]);
    expect(Workload.check({}, { ...bm, waitForCapacity: "1h30m" }).failures).toEqual([]);
  });

  it("names the property and the rule of each bad input", () => {
    const failures = (news: Record<string, unknown>) => Workload.check({}, news).failures;
    expect(failures({ ...gpu, fallbackRegions: ["us-east-1"] })).toEqual([
      {
        property: "fallbackRegions",
        reason: "fallbackRegions is only supported for BM workloads (type is RENTAL)",
      },
    ]);
    expect(failures({ ...gpu, fallbackResourceNames: ["gpu-rental-medium", "gpu-rental-medium"] })).toEqual([
      {
        property: "fallbackResourceNames[1]",
        reason:
          'fallbackResourceNames[1] repeats "gpu-rental-medium": each resource is listed once, the first choice included',
      },
    ]);
    expect(failures({ ...gpu, fallbackResourceNames: ["gpu-rental-large"] })[0]).toMatchObject({
      property: "fallbackResourceNames[0]",
    });
    expect(failures({ ...gpu, fallbackResourceNames: [""] })).toEqual([
      { property: "fallbackResourceNames[0]", reason: "fallbackResourceNames[0] must name a resource" },
    ]);
    expect(failures({ ...bm, fallbackRegions: ["EU West"] })).toEqual([
      {
        property: "fallbackRegions[0]",
        reason: "fallbackRegions[0] must be a lowercase slug of at most 32 characters",
      },
    ]);
    expect(failures({ ...bm, fallbackRegions: ["us-east-1", "eu-west-1"] })[0]).toMatchObject({
      property: "fallbackRegions[1]",
    });
    expect(failures({ ...gpu, waitForCapacity: "ten minutes" })).toEqual([
      {
        property: "waitForCapacity",
        reason: 'waitForCapacity must be a duration such as "30s", "10m" or "1h30m" (got "ten minutes")',
      },
    ]);
    expect(failures({ ...gpu, waitForCapacity: 600 })[0]).toMatchObject({ property: "waitForCapacity" });
    expect(
      Sandbox.check({}, { name: "dev", template: "tpl-ubuntu-headless", waitForCapacity: "5" }).failures,
    ).toEqual([
      {
        property: "waitForCapacity",
        reason: 'waitForCapacity must be a duration such as "30s", "10m" or "1h30m" (got "5")',
      },
    ]);
  });

  it("checks nothing that is not known yet at preview", () => {
    expect(Workload.check({}, { ...gpu, fallbackResourceNames: UNKNOWN }).failures).toEqual([]);
    expect(Workload.check({}, { ...gpu, fallbackResourceNames: [UNKNOWN, UNKNOWN] }).failures).toEqual([]);
    expect(Workload.check({}, { ...gpu, waitForCapacity: UNKNOWN }).failures).toEqual([]);
  });
});

describe("the candidates a create tries", () => {
  it("are each resource in turn, and for BM each region in turn within each resource", () => {
    expect(candidatesOf(gpu)).toEqual([
      { resourceName: "gpu-rental-large" },
      { resourceName: "gpu-rental-medium" },
    ]);
    expect(candidatesOf({ ...bm, fallbackResourceNames: ["bm-a100-8x"] })).toEqual([
      { resourceName: "bm-h100-8x", region: "eu-west-1" },
      { resourceName: "bm-h100-8x", region: "us-east-1" },
      { resourceName: "bm-a100-8x", region: "eu-west-1" },
      { resourceName: "bm-a100-8x", region: "us-east-1" },
    ]);
  });

  it("are tried again after pauses doubling from 1 s to 30 s", () => {
    const none = () => 0;
    expect([1, 2, 3, 5, 6, 9].map((r) => roundPauseMs(r, none))).toEqual([
      1000, 2000, 4000, 16000, 30000, 30000,
    ]);
    expect(roundPauseMs(1, () => 1)).toBe(750);
  });
});

describe("a change of the candidate lists", () => {
  const diff = (olds: object, news: object) => Workload.diff("wl-1", olds as never, news as never);

  it("is in place while the workload's placement stays listed: reordered, added, preferred moved", () => {
    const olds = placed(gpu, "gpu-rental-medium");
    const reordered = diff(olds, {
      ...gpu,
      resourceName: "gpu-rental-medium",
      fallbackResourceNames: ["gpu-rental-large", "gpu-rental-small"],
    });
    expect(reordered).toMatchObject({
      changes: true,
      replaces: [],
      detail: { resourceName: "update", fallbackResourceNames: "update" },
    });
    expect(reordered.reasons).toBeUndefined();
    expect(diffWords("Workload", reordered, "trainer")).toEqual([
      "resourceName, fallbackResourceNames change: updated in place, no redeploy",
    ]);
    // Its first choice, not where it landed, may be replaced by another first choice.
    expect(
      diff(placed(gpu, "gpu-rental-medium"), { ...gpu, resourceName: "gpu-rental-small" }),
    ).toMatchObject({
      replaces: [],
      detail: { resourceName: "update" },
    });
    const swapped = diff(placed(bm, "bm-h100-8x", "us-east-1"), {
      ...bm,
      region: "us-east-1",
      fallbackRegions: ["eu-west-1"],
    });
    expect(swapped).toMatchObject({ replaces: [], detail: { region: "update", fallbackRegions: "update" } });
    expect(diff(olds, { ...gpu, waitForCapacity: "5m" })).toMatchObject({
      replaces: [],
      detail: { waitForCapacity: "update" },
    });
  });

  it("replaces it when the resource or region it runs on is removed, saying why", () => {
    const d = diff(placed(gpu, "gpu-rental-medium"), { ...gpu, fallbackResourceNames: ["gpu-rental-small"] });
    expect(d).toMatchObject({
      replaces: ["fallbackResourceNames"],
      detail: { fallbackResourceNames: "replace" },
    });
    expect(d.reasons).toEqual([
      "it runs on gpu-rental-medium, which is no longer resourceName or one of fallbackResourceNames: a new workload replaces it",
    ]);
    expect(diffWords("Workload", d, "trainer")).toEqual([
      "workload trainer: it runs on gpu-rental-medium, which is no longer resourceName or one of fallbackResourceNames: a new workload replaces it",
    ]);
    const region = diff(placed(bm, "bm-h100-8x", "us-east-1"), { ...bm, fallbackRegions: [] });
    expect(region.replaces).toEqual(["fallbackRegions"]);
    expect(region.reasons?.[0]).toMatch(/runs in region us-east-1, which is no longer region/);
    // Without fallbacks, a new resource replaces it as it always did.
    const plain = { ...gpu, fallbackResourceNames: undefined };
    expect(
      diff(placed(plain, "gpu-rental-large"), { ...plain, resourceName: "gpu-rental-small" }).replaces,
    ).toEqual(["resourceName"]);
  });

  it("of state written before the fallbacks existed (0.1.0) is nothing, and adding fallbacks is in place", () => {
    const old = { ...gpu, fallbackResourceNames: undefined, uid: "wl-1", status: "running" };
    const plain = { ...gpu, fallbackResourceNames: undefined };
    expect(diff(old, plain).changes).toBe(false);
    expect(diff(old, gpu)).toMatchObject({ replaces: [], detail: { fallbackResourceNames: "update" } });
  });

  it("at preview, with a list not known yet, applies each input's own rule", () => {
    const olds = placed(gpu, "gpu-rental-medium");
    expect(diff(olds, { ...gpu, fallbackResourceNames: UNKNOWN })).toMatchObject({
      replaces: [],
      detail: { fallbackResourceNames: "update" },
    });
    expect(diff(olds, { ...gpu, resourceName: UNKNOWN })).toMatchObject({
      replaces: ["resourceName"],
      detail: { resourceName: "replace" },
    });
  });
});
