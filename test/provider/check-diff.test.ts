import { describe, expect, it } from "vitest";
import { RESOURCES } from "../../provider/registry.ts";
import { UNKNOWN } from "../../provider/core/unknowns.ts";
import { diffWords } from "../../provider/core/diff-words.ts";

const { Workload, Sandbox, Volume, SshKey, WorkloadTemplate } = RESOURCES as Required<typeof RESOURCES>;
const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx user@host";

const rental = {
  type: "RENTAL",
  name: "web",
  image: "nginx:1.27",
  resourceName: "gpu-rental-small",
  ports: [{ port: 8080 }],
  volumes: [{ uid: "vol-1", mountPath: "/data" }],
};

const properties = (failures: { property: string }[]) => failures.map((f) => f.property);

describe("Workload check", () => {
  it("accepts a valid RENTAL workload", () => {
    expect(Workload!.check({}, rental).failures).toEqual([]);
  });

  it("names the property and the rule for each type rule", () => {
    const vm = Workload!.check(
      {},
      { type: "VM", name: "vm1", image: "ubuntu-22.04", resourceName: "vm-standard" },
    ).failures;
    expect(vm).toContainEqual({
      property: "vmConfig.password",
      reason: "vmConfig.password is required for VM workloads",
    });

    const bm = Workload!.check(
      {},
      { type: "BM", name: "bm1", image: "ubuntu", resourceName: "bm-h100-8x" },
    ).failures;
    expect(properties(bm)).toEqual(expect.arrayContaining(["region", "sshKeys"]));
    expect(bm.find((f) => f.property === "sshKeys")!.reason).toMatch(/at least one SSH key/);

    const badName = Workload!.check({}, { ...rental, name: "Web_1" }).failures;
    expect(badName[0]).toMatchObject({ property: "name" });
    expect(badName[0]!.reason).toMatch(/lowercase/);

    const region = Workload!.check({}, { ...rental, region: "us-east-1" }).failures;
    expect(region).toContainEqual({
      property: "region",
      reason: "region is not supported for RENTAL workloads",
    });

    const port = Workload!.check({}, { ...rental, ports: [{ port: 80 }] }).failures;
    expect(port[0]!.property).toBe("ports[0].port");
    expect(port[0]!.reason).toMatch(/between 1024 and 65535/);

    const pw = Workload!.check(
      {},
      { type: "VM", name: "v", image: "i", resourceName: "vm-standard", vmConfig: { password: "abc" } },
    ).failures;
    expect(pw[0]).toMatchObject({ property: "vmConfig.password" });
    expect(pw[0]!.reason).toMatch(/at least 4/);
  });

  it("refuses SANDBOX, suspending a VM, and undeploying", () => {
    expect(properties(Workload!.check({}, { ...rental, type: "SANDBOX" }).failures)).toContain("type");
    const vm = {
      type: "VM",
      name: "v",
      image: "i",
      resourceName: "vm-standard",
      vmConfig: { password: "secret" },
      suspended: true,
    };
    expect(properties(Workload!.check({}, vm).failures)).toEqual(["suspended"]);
    expect(properties(Workload!.check(rental, { ...rental, deploy: false }).failures)).toEqual(["deploy"]);
    expect(Workload!.check({}, { ...rental, deploy: false }).failures).toEqual([]);
  });

  it("does not judge values that are unknown at preview", () => {
    expect(Workload!.check({}, { ...rental, image: UNKNOWN, region: UNKNOWN }).failures).toEqual([]);
  });
});

describe("Workload diff", () => {
  it("sees no change where only service defaults differ", () => {
    const olds = {
      ...rental,
      ports: [{ port: 8080, protocol: "TCP", routing: "PROXIED" }],
      volumes: [{ uid: "vol-1", mountPath: "/data", readOnly: false }],
      envs: [],
      deploy: true,
      uid: "w1",
      status: "running",
    };
    expect(Workload!.diff("w1", olds, rental)).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates in place (with redeploy) or replaces, field by field", () => {
    const image = Workload!.diff("w1", rental, { ...rental, image: "nginx:1.28" });
    expect(image).toMatchObject({ changes: true, replaces: [], detail: { image: "redeploy" } });
    const rn = Workload!.diff("w1", rental, { ...rental, resourceName: "other" });
    expect(rn).toMatchObject({ changes: true, replaces: ["resourceName"] });
    const susp = Workload!.diff("w1", rental, { ...rental, suspended: true });
    expect(susp).toMatchObject({ changes: true, replaces: [], detail: { suspended: "update" } });
    const pw = {
      type: "VM",
      name: "v",
      image: "i",
      resourceName: "vm-standard",
      vmConfig: { password: "a-secret" },
    };
    expect(Workload!.diff("w1", pw, { ...pw, vmConfig: { password: "b-secret" } }).replaces).toEqual([
      "vmConfig",
    ]);
  });
});

describe("Sandbox", () => {
  const sb = { name: "box", template: "tpl-1", ttlSec: 600, ports: [{ port: 8000 }] };

  it("updates ttlSec, ports and name in place; template and forkFrom replace", () => {
    expect(Sandbox!.diff("s", sb, { ...sb, ttlSec: 900 })).toMatchObject({ changes: true, replaces: [] });
    expect(Sandbox!.diff("s", sb, { ...sb, ports: [{ port: 8001 }] })).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(Sandbox!.diff("s", sb, { ...sb, frozen: true }).detail).toEqual({ frozen: "update" });
    // frozen: true removed from the program: thawed (its empty value), then left to the service.
    expect(Sandbox!.diff("s", { ...sb, frozen: true }, sb).detail).toEqual({ frozen: "update" });
    expect(Sandbox!.diff("s", { ...sb, frozen: true }, { ...sb, frozen: false }).detail).toEqual({
      frozen: "update",
    });
    expect(Sandbox!.diff("s", sb, { ...sb, template: "tpl-2" }).replaces).toEqual(["template"]);
    expect(
      Sandbox!.diff("s", { ...sb, ports: [{ port: 8000, protocol: "TCP" }], frozen: false }, sb).changes,
    ).toBe(false);
  });

  it("shows a sandbox the service reports in error (lost at a restart) as the redeploy that repairs it", () => {
    const lost = { ...sb, status: "error" };
    expect(Sandbox!.diff("s", lost, sb)).toMatchObject({
      changes: true,
      replaces: [],
      detail: { status: "redeploy" },
    });
    expect(Sandbox!.diff("s", { ...sb, status: "running" }, sb).changes).toBe(false);
    // A change that replaces it anyway is still a replace.
    expect(Sandbox!.diff("s", lost, { ...sb, template: "tpl-2" }).replaces).toEqual(["template"]);
    expect(diffWords("Sandbox", Sandbox!.diff("s", lost, sb), "box", "error")).toEqual([
      "sandbox box is in error on the service: up redeploys it to repair it",
    ]);
  });

  it("a workload in error that the program keeps undeployed is no drift", () => {
    const wl = { ...rental, deploy: false };
    expect(Workload!.diff("w", { ...wl, status: "error" }, wl).detail.status).toBeUndefined();
    expect(Workload!.diff("w", { ...rental, status: "error" }, rental).detail.status).toBe("redeploy");
  });

  it("plans the in-place update that deploys a workload whose deploy was refused (still registered)", () => {
    const refused = { ...rental, status: "registered" };
    const d = Workload!.diff("w", refused, rental);
    expect(d).toMatchObject({ changes: true, replaces: [], detail: { status: "update" } });
    expect(diffWords("Workload", d, "web", "registered")).toEqual([
      "workload web is registered on the service, not deployed: up deploys it",
    ]);
    // Kept registered on purpose, or deployed: nothing to do.
    const kept = { ...rental, deploy: false };
    expect(Workload!.diff("w", { ...kept, status: "registered" }, kept).changes).toBe(false);
    expect(Workload!.diff("w", { ...rental, status: "running" }, rental).changes).toBe(false);
    // A change that replaces it is a replacement, nothing more.
    const replaced = Workload!.diff("w", refused, { ...rental, resourceName: "gpu-rental-medium" });
    expect(replaced.replaces).toEqual(["resourceName"]);
    expect(replaced.detail.status).toBeUndefined();
  });

  it("checks names, ports, timeouts and the template", () => {
    expect(Sandbox!.check({}, sb).failures).toEqual([]);
    const bad = Sandbox!.check(
      {},
      {
        name: "-box",
        ports: [{ port: 22 }, { port: 9000, routing: "DIRECT" }],
        ttlSec: 10,
        idleTimeoutSec: 20,
      },
    ).failures;
    expect(properties(bad)).toEqual(
      expect.arrayContaining(["name", "template", "ports[0]", "ports[1].routing", "idleTimeoutSec"]),
    );
    // One failure per mistake: port 22 is reserved (not also out of range).
    expect(properties(bad)).toHaveLength(5);
    expect(bad.find((f) => f.property === "idleTimeoutSec")!.reason).toBe(
      "idleTimeoutSec must be smaller than ttlSec when both are enabled",
    );
    expect(properties(Sandbox!.check({}, { ...sb, forkFrom: "p" }).failures)).toEqual(["forkFrom"]);
    // One mistake, one failure: an SCTP port on a sandbox.
    expect(Sandbox!.check({}, { ...sb, ports: [{ port: 8000, protocol: "SCTP" }] }).failures).toEqual([
      { property: "ports[0].protocol", reason: "ports[0].protocol must be TCP or UDP for SANDBOX workloads" },
    ]);
  });
});

describe("Volume, SshKey and WorkloadTemplate", () => {
  it("validates volumes and SSH keys with the shared schemas", () => {
    const v = Volume!.check({}, { name: "data", sizeInMb: 0, resourceName: "gpu-rental-small" }).failures;
    expect(v).toEqual([{ property: "sizeInMb", reason: "sizeInMb must be at least 1" }]);
    expect(SshKey!.check({}, { name: "k", publicKey: ED25519 }).failures).toEqual([]);
    const k = SshKey!.check({}, { name: "k", publicKey: "ssh-dss AAAA" }).failures;
    expect(k[0]!.property).toBe("publicKey");
    expect(k[0]!.reason).toMatch(/ssh-ed25519, ssh-rsa, ecdsa-sha2/);
  });

  it("ignores the key comment, replaces on a new key", () => {
    const withComment = { name: "k", publicKey: ED25519 };
    const noComment = { name: "k", publicKey: ED25519.split(" ").slice(0, 2).join(" ") };
    expect(SshKey!.diff("k", withComment, noComment).changes).toBe(false);
    expect(Volume!.diff("v", { name: "a", sizeInMb: 10 }, { name: "b", sizeInMb: 20 }).replaces).toEqual([
      "sizeInMb",
    ]);
  });

  it("takes an imported template's source sandbox (never returned by the service) as the program's", () => {
    const { SandboxTemplate } = RESOURCES as Required<typeof RESOURCES>;
    const tpl = { name: "golden", sourceSandbox: "sb-1", description: "d" };
    const imported = { name: "golden", description: "d" };
    expect(SandboxTemplate!.diff("t", imported, tpl).changes).toBe(false);
    expect(SandboxTemplate!.diff("t", tpl, { ...tpl, sourceSandbox: "sb-2" }).replaces).toEqual([
      "sourceSandbox",
    ]);
  });

  it("validates a template manifest as a create body of the template's type", () => {
    const ok = {
      name: "t",
      type: "RENTAL",
      manifest: { name: "web", image: "nginx", resourceName: "gpu-rental-small" },
    };
    expect(WorkloadTemplate!.check({}, ok).failures).toEqual([]);
    const mismatch = WorkloadTemplate!.check(
      {},
      { ...ok, manifest: { ...ok.manifest, type: "VM" } },
    ).failures;
    expect(properties(mismatch)).toContain("manifest.type");
    const vm = WorkloadTemplate!.check(
      {},
      { name: "t", type: "VM", manifest: { name: "v", image: "i", resourceName: "vm-standard" } },
    ).failures;
    expect(properties(vm)).toContain("manifest.vmConfig.password");
  });
});

describe("refresh shapes what it reads like the program", () => {
  it("keeps the program's spelling where the service means the same, and shows real drift", async () => {
    const { keepProgramShape, portsNormaliser } = await import("../../provider/core/diff.ts");
    const rules = {
      image: { kind: "redeploy" as const },
      ports: { kind: "redeploy" as const, normalise: portsNormaliser(true) },
      args: { kind: "redeploy" as const },
      deploy: { kind: "update" as const, default: true },
    };
    const olds = { name: "web", image: "nginx:1.27", ports: [{ port: 8080 }] };
    const fresh = {
      name: "web",
      image: "nginx:1.27",
      ports: [{ port: 8080, protocol: "TCP", routing: "PROXIED" }],
      args: [],
      deploy: true,
    };
    expect(keepProgramShape(rules, olds, fresh)).toEqual({
      name: "web",
      image: "nginx:1.27",
      ports: [{ port: 8080 }],
    });
    // args was never set: not managed, so a value set on the service is not reported as drift.
    const drifted = keepProgramShape(rules, olds, { ...fresh, image: "httpd", args: ["-x"] });
    expect(drifted).toEqual({ name: "web", image: "httpd", ports: [{ port: 8080 }] });
    // A lookup (no previous inputs) reports every value that is not empty.
    expect(keepProgramShape(rules, {}, { ...fresh, args: ["-x"] })).toMatchObject({ args: ["-x"] });
  });
});

describe("check with values unknown at preview", () => {
  it("still reports the rules that involve only known values", () => {
    const vm = {
      type: "VM",
      name: "v",
      image: "ubuntu-22.04",
      resourceName: "vm-standard",
      sshKeys: [UNKNOWN],
    };
    expect(Workload!.check({}, vm).failures.map((f) => f.property)).toEqual(["vmConfig.password"]);
    expect(Workload!.check({}, { ...rental, ports: UNKNOWN }).failures).toEqual([]);
    expect(Workload!.check({}, { ...rental, name: UNKNOWN }).failures).toEqual([]);
  });
});
