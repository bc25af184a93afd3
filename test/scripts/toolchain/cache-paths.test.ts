/**
 * Where the toolchain finds its builds: `~/.cache/pulumi-cws` (or what the environment names
 * instead), one folder per tool and release, so every clone on a machine shares them.
 */
import { execFileSync } from "node:child_process";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { goToolchainEnv, requiredVersion, toolchainCache } from "../../../scripts/toolchain/go-build.ts";
import { pulumiRoot } from "../../../scripts/toolchain/pulumi.ts";
import { TERRAFORM_VERSION, terraformPath } from "../../../scripts/toolchain/terraform.ts";
import { tofuPath } from "../../../scripts/toolchain/tofu.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";

const saved = { ...process.env };

describe("the toolchain cache", () => {
  afterEach(() => {
    for (const k of ["CWS_PULUMI_CACHE", "XDG_CACHE_HOME", "CWS_TOFU", "CWS_TERRAFORM"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it("is ~/.cache/pulumi-cws, or under XDG_CACHE_HOME, or CWS_PULUMI_CACHE", () => {
    delete process.env.CWS_PULUMI_CACHE;
    delete process.env.XDG_CACHE_HOME;
    expect(toolchainCache()).toBe(join(homedir(), ".cache", "pulumi-cws"));
    process.env.XDG_CACHE_HOME = "/xdg";
    expect(toolchainCache()).toBe("/xdg/pulumi-cws");
    process.env.CWS_PULUMI_CACHE = "/elsewhere";
    expect(toolchainCache()).toBe("/elsewhere");
  });

  it("holds the CLI, OpenTofu and Terraform in folders named for their release", () => {
    process.env.CWS_PULUMI_CACHE = "/cache";
    delete process.env.CWS_TOFU;
    delete process.env.CWS_TERRAFORM;
    expect(pulumiRoot("3.1.2")).toBe("/cache/pulumi-v3.1.2");
    expect(tofuPath("1.2.3")).toBe("/cache/tofu-v1.2.3/bin/tofu");
    expect(terraformPath()).toBe(`/cache/terraform-v${TERRAFORM_VERSION}/bin/terraform`);
    expect(terraformPath("1.13.3")).toBe("/cache/terraform-v1.13.3/bin/terraform");
    process.env.CWS_TOFU = "/usr/bin/terraform";
    expect(tofuPath()).toBe("/usr/bin/terraform");
    process.env.CWS_TERRAFORM = "/opt/terraform";
    expect(terraformPath()).toBe("/opt/terraform");
  });

  it("reads the release a wrapper module of tools/ pins", () => {
    expect(requiredVersion(join(REPO_ROOT, "tools", "pulumi-yaml"), "github.com/pulumi/pulumi-yaml")).toMatch(
      /^\d+\.\d+\.\d+/,
    );
    expect(() => requiredVersion(join(REPO_ROOT, "tools", "pulumi-yaml"), "example.com/none")).toThrow(
      /does not require example\.com\/none/,
    );
  });

  it("fetches the Go a module asks for only when the installed Go is older", () => {
    const [major, minor, patch] = execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8" })
      .replace(/^go/, "")
      .split(/[.\s]/)
      .map(Number);
    expect(goToolchainEnv(`${major}.${minor}.${patch}`)).toEqual({});
    expect(goToolchainEnv(`${major}.${minor! - 1}`)).toEqual({});
    expect(goToolchainEnv(`${major}.${minor}.${patch! + 1}`)).toEqual({
      GOTOOLCHAIN: `go${major}.${minor}.${patch! + 1}`,
    });
    // A `go` line without a patch release (`go 1.27`) asks for its first (go1.27.0).
    expect(goToolchainEnv(`${major}.${minor! + 1}`)).toEqual({ GOTOOLCHAIN: `go${major}.${minor! + 1}.0` });
  });
});
