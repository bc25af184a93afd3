/**
 * One scenario list that every front end runs (dynamic, native, OpenTofu): each step declares
 * the resources as data (camelCase inputs, `{ ref }` for another resource's uid) and says what
 * the plan must show per resource. Front ends translate the declaration (Pulumi classes or HCL)
 * and report what their preview or plan said in the same words.
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

export interface Step {
  what: string;
  declare: Record<string, Decl>;
  plan: Record<string, Planned>;
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
  /** Applies `declare`; a failed apply throws with what the tool printed. */
  apply(declare: Record<string, Decl>, opts?: ApplyOptions): Promise<void>;
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
