import { describe, expect, it } from "vitest";
import { RESOURCES } from "../../provider/registry.ts";

const workload = RESOURCES.Workload!;

const vm = { type: "VM", name: "vm", image: "ubuntu-22.04", resourceName: "vm-standard" };
const web = { type: "RENTAL", name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" };
const auth = { server: "registry.example.com", username: "ci" };

describe("passwords the service never returns", () => {
  it("after an import (no password in state) the program's password is taken, not a replace", () => {
    expect(workload.diff("wl-1", vm, { ...vm, vmConfig: { password: "pw-1234" } }).detail).toEqual({});
    const d = workload.diff(
      "wl-2",
      { ...web, registryAuth: auth },
      { ...web, registryAuth: { ...auth, password: "x" } },
    );
    expect(d.detail).toEqual({});
  });

  it("once a password is in state, changing it is a change as usual", () => {
    const withPw = { ...vm, vmConfig: { password: "pw-1234" } };
    expect(workload.diff("wl-1", withPw, { ...vm, vmConfig: { password: "pw-5678" } }).replaces).toEqual([
      "vmConfig",
    ]);
    const d = workload.diff(
      "wl-2",
      { ...web, registryAuth: { ...auth, password: "x" } },
      { ...web, registryAuth: { ...auth, password: "y" } },
    );
    expect(Object.keys(d.detail)).toEqual(["registryAuth"]);
  });

  it("the other fields of registryAuth are still compared after an import", () => {
    const d = workload.diff(
      "wl-2",
      { ...web, registryAuth: auth },
      { ...web, registryAuth: { ...auth, username: "deploy", password: "x" } },
    );
    expect(Object.keys(d.detail)).toEqual(["registryAuth"]);
  });
});
