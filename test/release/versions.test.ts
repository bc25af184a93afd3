/**
 * One version everywhere (docs/release-policy.md): the package, the schema, the guardrails pack,
 * the plugin as the engine meets it (GetPluginInfo, GetSchema), the changelog's newest release, the version the
 * README tells a project to pin, and a recorded upgrade set of that version's state.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { pluginClient, pluginIdentity } from "../helpers/plugin-grpc.ts";
import { REPO_ROOT } from "../../scripts/repo-root.ts";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const VERSION = (JSON.parse(read("package.json")) as { version: string }).version;

describe(`version ${VERSION}`, () => {
  it("is the schema's", () => {
    expect((JSON.parse(read("schema.json")) as { version: string }).version).toBe(VERSION);
  });

  it("is the guardrails pack's, which depends on this very package and its @pulumi versions", () => {
    const pkg = JSON.parse(read("package.json")) as { dependencies: Record<string, string> };
    const pack = JSON.parse(read("policy-pack/package.json")) as {
      version: string;
      dependencies: Record<string, string>;
    };
    expect(pack.version).toBe(VERSION);
    expect(pack.dependencies).toEqual({
      "@pulumi/policy": pkg.dependencies["@pulumi/policy"],
      "@pulumi/pulumi": pkg.dependencies["@pulumi/pulumi"],
      "pulumi-cws": VERSION,
    });
  });

  it("is what the plugin reports to the engine, and the version of the schema it serves", async () => {
    const plugin = spawn(join(REPO_ROOT, "bin", "pulumi-resource-cws"), [], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const lines = createInterface({ input: plugin.stdout });
      const port = (await lines[Symbol.asyncIterator]().next()).value as string;
      const client = pluginClient(port);
      const { version, schema } = await pluginIdentity(client);
      expect(version).toBe(VERSION);
      expect((schema as { version: string }).version).toBe(VERSION);
      client.close();
    } finally {
      plugin.kill();
    }
  });

  it("is the changelog's newest release and has its recorded upgrade set", () => {
    const newest = /^## (\d+\.\d+\.\d+)/m.exec(read("CHANGELOG.md"))?.[1];
    expect(newest).toBe(VERSION);
    for (const frontEnd of ["dynamic", "native"])
      expect(
        existsSync(join(REPO_ROOT, "test", "fixtures", "upgrade", VERSION, frontEnd, "state.json")),
      ).toBe(true);
  });

  it("is the version the docs tell a project to pin for the plugin", () => {
    const pages = [
      "README.md",
      ...readdirSync(join(REPO_ROOT, "docs"), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".md"))
        .map((f) => join("docs", f)),
    ];
    // `plugins.providers` entries of Pulumi.yaml: `version: X` under a `path:` line.
    const pinned = pages.flatMap((p) =>
      [...read(p).matchAll(/^\s+path: .*\n\s+version: (\S+)$/gm)].map((m) => `${p}: ${m[1]}`),
    );
    expect(pinned.length).toBeGreaterThan(0);
    expect(pinned).toEqual(pinned.map((p) => `${p.slice(0, p.lastIndexOf(": "))}: ${VERSION}`));
  });
});
