/**
 * One scenario list that every front end runs (dynamic, native, OpenTofu): each step declares
 * the resources as data (camelCase inputs, `{ ref }` for another resource's uid) and says what
 * the plan must show per resource. Front ends translate the declaration (Pulumi classes or HCL)
 * and report what their preview or plan said in the same words. A step may also set the scene
 * through the service's admin (sell a resource out, restock it during the apply, take credits
 * away) and say what the apply must print, leave in state and leave on the service (steps.ts).
 */
export type Kind = "Workload" | "Volume" | "SshKey" | "Sandbox" | "SandboxTemplate" | "WorkloadTemplate";
export type Planned = "create" | "update" | "redeploy" | "replace" | "delete" | "same";

/** Another declared resource's uid. */
export interface Ref {
  ref: string;
}

export interface Decl {
  kind: Kind;
  inputs: Record<string, unknown>;
}

/** What the service's admin does around a step (the reference server's admin API). */
export type AdminAct =
  /** Inventory capacities to set: 0 sells a resource out, null gives the seed's back. */
  | { capacity: Record<string, number | null> }
  /** The org's credit balance (USD). */
  | { credits: number };

export interface Step {
  what: string;
  declare: Record<string, Decl>;
  plan: Record<string, Planned>;
  /** Before the plan: what the admin does (sell out a resource, take credits away). */
  arrange?: AdminAct[];
  /** While the apply runs: once `refused` (a workload name) had `times` deploys refused, `then`. */
  during?: { refused: string; times: number; then: AdminAct[] };
  /** How the apply runs (Pulumi's --continue-on-error, which OpenTofu always does). */
  apply?: ApplyOptions;
  /** The apply fails, and what it printed says each of these. */
  fails?: RegExp[];
  /** What the apply printed says besides (messages on a resource's line, warnings). */
  says?: RegExp[];
  /** Outputs after the apply, of each named resource (those given). */
  outputs?: Record<string, Record<string, unknown>>;
  /** Resources whose uid the apply keeps (no replacement). */
  keeps?: string[];
  /** How many live workloads of each name the org holds after the apply (nothing left behind). */
  live?: Record<string, number>;
  /** Resources whose create failed that the next apply finishes in place (Driver.keepFailed). */
  keepFailed?: string[];
  /** The plan after the apply where it is not "same" (a failed create is planned again). */
  after?: Record<string, Planned>;
}

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx shared@cws";

const key = (name: string): Decl => ({ kind: "SshKey", inputs: { name, publicKey: KEY } });
const volume = (name: string, sizeInMb: number): Decl => ({
  kind: "Volume",
  inputs: { name, sizeInMb, resourceName: "gpu-rental-small" },
});
const web = (image: string, envs: { name: string; value: string }[]): Decl => ({
  kind: "Workload",
  inputs: {
    type: "RENTAL",
    name: "sc-web",
    image,
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
    envs,
    sshKeys: [{ ref: "key" } satisfies Ref],
  },
});
const template = (description: string): Decl => ({
  kind: "WorkloadTemplate",
  inputs: {
    name: "sc-template",
    description,
    type: "RENTAL",
    manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
  },
});

const first = {
  key: key("sc-key"),
  vol: volume("sc-vol", 256),
  web: web("nginx:1.27", [{ name: "MODE", value: "a" }]),
  tpl: template("first"),
};
const changed = {
  key: key("sc-key2"),
  vol: volume("sc-vol2", 256),
  web: web("nginx:1.28", [{ name: "MODE", value: "a" }]),
  tpl: template("second"),
};
const resized = { ...changed, vol: volume("sc-vol2", 512) };
const same = (decls: object) => Object.fromEntries(Object.keys(decls).map((k) => [k, "same" as const]));

// --- When capacity runs out (docs/capacity.md) ----------------------------------------------------

const rental = (name: string, resourceName: string, fallbacks: string[]): Decl => ({
  kind: "Workload",
  inputs: { type: "RENTAL", name, image: "nginx:1.27", resourceName, fallbackResourceNames: fallbacks },
});
const metal = (region: string, fallbackRegions: string[]): Decl => ({
  kind: "Workload",
  inputs: {
    type: "BM",
    name: "sc-bm",
    image: "ubuntu-22.04-cuda",
    resourceName: "bm-h100-8x",
    region,
    fallbackRegions,
    sshKeys: [{ ref: "key" } satisfies Ref],
  },
});
const waiter: Decl = {
  kind: "Workload",
  inputs: {
    type: "VM",
    name: "sc-waiter",
    image: "ubuntu-22.04",
    resourceName: "vm-gpu",
    fallbackResourceNames: ["vm-standard"],
    vmConfig: { password: "waiter-pass" },
    waitForCapacity: "2m",
  },
};
const kept = { key: resized.key, vol: resized.vol };

/**
 * Sold out: the preferred GPU (gpu-rental-large) for two workloads, which land on their next
 * candidates; eu-west-1's bare metal (it has none), so the BM workload lands in us-east-1; both
 * candidates of `stuck`, which fails naming them and leaves nothing registered; and both of
 * `waiter`, which waits until vm-standard is restocked during the apply.
 */
const placed = {
  ...kept,
  gpu: rental("sc-gpu", "gpu-rental-large", ["gpu-rental-medium"]),
  gpu2: rental("sc-gpu2", "gpu-rental-large", ["gpu-rental-small"]),
  bm: metal("eu-west-1", ["us-east-1"]),
  stuck: rental("sc-stuck", "cpu-rental-small", ["gpu-rental-large"]),
  waiter,
};

/**
 * The lists changed: `gpu` reordered (its fallback now first) with a candidate added, `bm` with its
 * regions swapped, both kept in place though gpu-rental-large is restocked (nothing moves back);
 * `gpu2` without the resource it runs on, so replaced; `stuck` created now that its first choice
 * is restocked; and `rich`, asking for a resource the org has too few credits for, not moved to
 * its affordable fallback.
 */
const relisted = {
  ...placed,
  gpu: rental("sc-gpu", "gpu-rental-medium", ["gpu-rental-large", "gpu-rental-small"]),
  gpu2: rental("sc-gpu2", "gpu-rental-medium", ["gpu-rental-large"]),
  bm: metal("us-east-1", ["eu-west-1"]),
  rich: rental("sc-rich", "gpu-rental-large", ["gpu-rental-small"]),
};

/** Fallbacks, waiting for capacity and their diffs, after the steps above (key and vol remain). */
export const CAPACITY_SCENARIOS: Step[] = [
  {
    what: "places each workload on its first candidate with capacity, waits for a restock, and fails naming every candidate without a wait",
    arrange: [{ capacity: { "gpu-rental-large": 0, "cpu-rental-small": 0, "vm-gpu": 0, "vm-standard": 0 } }],
    declare: placed,
    plan: { ...same(kept), gpu: "create", gpu2: "create", bm: "create", stuck: "create", waiter: "create" },
    during: { refused: "sc-waiter", times: 2, then: [{ capacity: { "vm-standard": null } }] },
    apply: { continueOnError: true },
    fails: [
      /no candidate had capacity: cpu-rental-small: .*\(WORKLOAD_NO_CAPACITY\); gpu-rental-large: .*\(WORKLOAD_NO_CAPACITY\)\. Nothing is left registered/,
    ],
    says: [
      /gpu-rental-large: no capacity; placed on gpu-rental-medium/,
      /gpu-rental-large: no capacity; placed on gpu-rental-small/,
      /bm-h100-8x in eu-west-1: no bare-metal capacity; placed on bm-h100-8x in us-east-1/,
      /vm-gpu: no capacity; waited \d+s for capacity; placed on vm-standard/,
    ],
    outputs: {
      gpu: { resourceName: "gpu-rental-large", placedResourceName: "gpu-rental-medium", status: "running" },
      gpu2: { placedResourceName: "gpu-rental-small", status: "running" },
      bm: { region: "eu-west-1", placedRegion: "us-east-1", status: "running" },
      waiter: { placedResourceName: "vm-standard", status: "running" },
    },
    live: { "sc-gpu": 1, "sc-gpu2": 1, "sc-bm": 1, "sc-stuck": 0, "sc-waiter": 1 },
    after: { stuck: "create" },
  },
  {
    what: "changes candidate lists in place while the placement stays listed, replaces a workload whose placement is removed, and never falls back past a credits refusal",
    arrange: [{ capacity: { "gpu-rental-large": 1, "cpu-rental-small": null } }, { credits: 10 }],
    declare: relisted,
    plan: {
      ...same(kept),
      gpu: "update",
      gpu2: "replace",
      bm: "update",
      stuck: "create",
      waiter: "same",
      rich: "create",
    },
    apply: { continueOnError: true },
    fails: [/WORKLOAD_INSUFFICIENT_CREDITS/],
    outputs: {
      gpu: { resourceName: "gpu-rental-medium", placedResourceName: "gpu-rental-medium" },
      gpu2: { placedResourceName: "gpu-rental-medium", status: "running" },
      bm: { region: "us-east-1", placedRegion: "us-east-1" },
      stuck: { placedResourceName: "cpu-rental-small", status: "running" },
      rich: { placedResourceName: "gpu-rental-large", status: "registered" },
    },
    keeps: ["gpu", "bm", "waiter"],
    live: { "sc-gpu": 1, "sc-gpu2": 1, "sc-bm": 1, "sc-stuck": 1, "sc-rich": 1 },
    keepFailed: ["rich"],
    after: { rich: "update" },
  },
];

export const SCENARIOS: Step[] = [
  {
    what: "creates a key, a volume, a workload using the key and a template",
    declare: first,
    plan: { key: "create", vol: "create", web: "create", tpl: "create" },
  },
  {
    what: "plans nothing when nothing changed",
    declare: first,
    plan: { key: "same", vol: "same", web: "same", tpl: "same" },
  },
  {
    what: "renames in place, says an image change redeploys, updates a template",
    declare: changed,
    plan: { key: "update", vol: "update", web: "redeploy", tpl: "update" },
  },
  {
    what: "replaces a volume whose size changes",
    declare: resized,
    plan: { key: "same", vol: "replace", web: "same", tpl: "same" },
  },
  {
    what: "deletes what is no longer declared",
    declare: { key: resized.key, vol: resized.vol },
    plan: { key: "same", vol: "same", web: "delete", tpl: "delete" },
  },
  ...CAPACITY_SCENARIOS,
];

/** How an apply runs. */
export interface ApplyOptions {
  /** How many resources the engine works on at once (default: Pulumi's, OpenTofu's 10). */
  parallel?: number;
  /**
   * Go on with the resources that do not depend on one that failed: Pulumi's
   * `--continue-on-error` (it otherwise stops starting new ones); what OpenTofu always does.
   */
  continueOnError?: boolean;
}

/** A front end as the scenario list drives it. */
export interface Driver {
  /** What the preview or plan of `declare` says per declared (or formerly declared) resource. */
  plan(declare: Record<string, Decl>): Promise<Record<string, Planned>>;
  /** Applies `declare` and answers what the tool printed; a failed apply throws with it. */
  apply(declare: Record<string, Decl>, opts?: ApplyOptions): Promise<string>;
  /** The outputs in state of each managed resource, by its declared name (camelCase). */
  outputs(): Promise<Record<string, Record<string, unknown>>>;
  /**
   * Keeps resources whose create failed as they are, so that the next apply finishes them in
   * place: nothing in Pulumi (the engine updates them); `tofu untaint` in OpenTofu.
   */
  keepFailed(names: string[]): Promise<void>;
  destroy(opts?: ApplyOptions): Promise<void>;
  cleanup(): Promise<void>;
}
