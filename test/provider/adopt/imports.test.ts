/**
 * What an import of every kind reads, through the one lifecycle (what `pulumi import`, `tofu
 * import`, refresh and `cws adopt` all use): the inputs a program would have written, which
 * check clean as an import checks them (old inputs = new inputs), a RENTAL workload without VM
 * settings, a VM with an empty vmConfig, a fork as a fork, a published template without the
 * source the service does not report; once the user supplies the secrets the service never
 * returns, no diff and no drift at refresh.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Props } from "../../../provider/core/types.ts";
import { RESOURCES } from "../../../provider/registry.ts";
import {
  REGISTRY_PASSWORD,
  TEMPLATE_PASSWORD,
  VM_PASSWORD,
  clientFor,
  makeOrgByHand,
  type HandMadeOrg,
} from "../../helpers/adopt-org.ts";
import { useTestServer } from "../../helpers/server.ts";

type Key = Exclude<keyof HandMadeOrg, "deleted">;
const KINDS: Record<Key, string> = {
  key: "SshKey",
  volume: "Volume",
  web: "Workload",
  batch: "Workload",
  vm: "Workload",
  bm: "Workload",
  dev: "Sandbox",
  fork: "Sandbox",
  template: "SandboxTemplate",
  fromTemplate: "Sandbox",
  workloadTemplate: "WorkloadTemplate",
};

/** The secrets a user supplies after the import, at their input paths. */
const SUPPLIED: Partial<Record<Key, (inputs: Props) => Props>> = {
  web: (i) => ({ ...i, registryAuth: { ...(i.registryAuth as Props), password: REGISTRY_PASSWORD } }),
  vm: (i) => ({ ...i, vmConfig: { password: VM_PASSWORD } }),
  workloadTemplate: (i) => {
    const m = i.manifest as Props;
    return {
      ...i,
      manifest: { ...m, registryAuth: { ...(m.registryAuth as Props), password: TEMPLATE_PASSWORD } },
    };
  },
};

describe("imports of every kind read what a program would have written", () => {
  const server = useTestServer();
  let org: HandMadeOrg;
  const ctx = () => ({ client: clientFor(server), log: () => {} });
  const lookup = async (k: Key) => {
    const r = await RESOURCES[KINDS[k]]!.read(ctx(), org[k], {});
    if (!r) throw new Error(`${k} ${org[k]} not found`);
    return r;
  };

  beforeAll(async () => {
    org = await makeOrgByHand(server);
  }, 180_000);

  it("reads each kind's inputs", async () => {
    expect((await lookup("web")).inputs).toEqual({
      type: "RENTAL",
      name: "web",
      image: "registry.example.com/team/web:1.4",
      resourceName: "gpu-rental-small",
      envs: [{ name: "MODE", value: "prod" }],
      ports: [{ port: 8080, protocol: "TCP", routing: "PROXIED" }],
      registryAuth: { server: "registry.example.com", username: "ci" },
      sshKeys: [org.key],
      volumes: [{ uid: org.volume, mountPath: "/data", readOnly: false }],
      projectId: "proj-shop",
    });
    expect((await lookup("batch")).inputs).toMatchObject({ type: "RENTAL", suspended: true });
    expect((await lookup("vm")).inputs).toMatchObject({ type: "VM", vmConfig: {} });
    expect((await lookup("bm")).inputs).toEqual({
      type: "BM",
      name: "train",
      image: "ubuntu-22.04-cuda",
      resourceName: "bm-h100-8x",
      region: "us-east-1",
      sshKeys: [org.key],
    });
    expect((await lookup("fork")).inputs).toEqual({
      name: "dev-copy",
      forkFrom: org.dev,
      sshKeys: [org.key],
      ports: [{ port: 8000, protocol: "TCP" }],
      ttlSec: 86_400,
    });
    expect((await lookup("fromTemplate")).inputs).toEqual({
      name: "review",
      template: org.template,
      frozen: true,
    });
    expect((await lookup("template")).inputs).toEqual({ name: "team-env", displayName: "Team environment" });
    for (const k of ["web", "batch", "bm"] as const)
      expect((await lookup(k)).inputs).not.toHaveProperty("vmConfig");
  });

  it("checks clean as an import checks it, and asks for the secrets only when creating", async () => {
    for (const k of Object.keys(KINDS) as Key[]) {
      const { inputs } = await lookup(k);
      const m = RESOURCES[KINDS[k]]!;
      expect(m.check(inputs, inputs).failures, k).toEqual([]);
      const asNew = m.check({}, inputs).failures.map((f) => f.property);
      const secret = { web: ["registryAuth.password"], vm: ["vmConfig.password"] } as Partial<
        Record<Key, string[]>
      >;
      if (k === "workloadTemplate") expect(asNew).toEqual(["manifest.registryAuth.password"]);
      else expect(asNew, k).toEqual(secret[k] ?? []);
    }
  });

  it("once the secrets are supplied, neither preview nor refresh finds a change", async () => {
    for (const k of Object.keys(KINDS) as Key[]) {
      const { inputs, outputs } = await lookup(k);
      const m = RESOURCES[KINDS[k]]!;
      const program = SUPPLIED[k]?.(inputs) ?? inputs;
      const checked = m.check(inputs, program);
      expect(checked.failures, k).toEqual([]);
      expect(m.diff(org[k], outputs, checked.inputs).detail, k).toEqual({});
      // After the first update the state holds the program's inputs; a refresh reads them back.
      const refreshed = await m.read(ctx(), org[k], { ...outputs, ...checked.inputs });
      expect(m.diff(org[k], refreshed!.outputs, checked.inputs).detail, k).toEqual({});
    }
  });

  it("a secret removed from a program that had it is still asked for", async () => {
    const { inputs } = await lookup("web");
    const withPassword = SUPPLIED.web!(inputs);
    const failures = RESOURCES.Workload!.check(withPassword, inputs).failures;
    expect(failures.map((f) => f.property)).toEqual(["registryAuth.password"]);
  });

  it("publishing a template still needs its source sandbox", async () => {
    const err = await RESOURCES.SandboxTemplate!.create(ctx(), { name: "orphan" }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(
      /cannot publish sandbox template orphan: sourceSandbox .* is required/,
    );
  });
});
