/**
 * The Java example run as a CI job runs it: `pulumi up` by the real CLI in a project directory,
 * through the Java language host (Maven compiles and runs the program), with the cws SDK jar
 * taken from a Maven repository directory as `npm run pack-sdks` publishes it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JAVA_EXAMPLE, JAVA_SDK_DIR, publishJavaSdk } from "../../../scripts/toolchain/java.ts";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import { pulumiRoot } from "../../../scripts/toolchain/pulumi.ts";
import { run } from "../../../scripts/run.ts";
import { useTestServer } from "../../helpers/server.ts";
import { liveResources } from "../../helpers/stacks.ts";
import { filesContaining, programDir, type ProgramDir } from "../../helpers/program-dir.ts";

/** Every CLI run starts Maven (compile, exec:java) once or twice on a busy two-core machine. */
const STACK_LIFE_MS = 900_000;

function pulumi(p: ProgramDir, ...args: string[]): Promise<string> {
  return run("pulumi", [...args, "--non-interactive"], { cwd: p.project, env: p.env });
}

describe("examples/java-rental through `pulumi up` with the Java language host", () => {
  const server = useTestServer();
  let repo: string;
  beforeAll(async () => {
    for (const [path, fix] of [
      [join(pulumiRoot(), "bin", "pulumi-language-java"), "npm run java:setup"],
      [join(JAVA_SDK_DIR, "pom.xml"), "npm run java:setup"],
    ] as const)
      if (!existsSync(path)) throw new Error(`${path} is missing: run \`${fix}\``);
    // The jar as packed for users: a Maven repository directory of its own.
    repo = mkdtempSync(join(tmpdir(), "cws-maven-"));
    await publishJavaSdk(repo, () => {});
  }, 300_000);
  afterAll(async () => {
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  it(
    "stack init, config set, up, preview with no changes, refresh, destroy; the lookup answers from Java",
    { timeout: STACK_LIFE_MS },
    async () => {
      const p = programDir("java-rental", JAVA_EXAMPLE, server);
      try {
        // The copy gets the SDK from the packed repository only (an id of its own, so Maven
        // does not reuse a copy it cached from another repository).
        const pom = join(p.project, "pom.xml");
        const original = readFileSync(pom, "utf8");
        const pointed = original.replace(
          /<id>cws-checkout<\/id>\s*<url>[^<]*<\/url>/,
          `<id>cws-packed-${Date.now()}</id><url>file://${repo}</url>`,
        );
        expect(pointed).not.toBe(original);
        writeFileSync(pom, pointed);
        rmSync(join(p.project, "target"), { recursive: true, force: true });

        // The plugin installed into Pulumi's plugin cache (a folder with a launcher that calls
        // the package's), and not on PATH.
        const pluginDir = join(p.state, "cws-plugin");
        mkdirSync(pluginDir);
        writeFileSync(
          join(pluginDir, "pulumi-resource-cws"),
          `#!/bin/sh\nexec ${join(REPO_ROOT, "bin", "pulumi-resource-cws")} "$@"\n`,
          { mode: 0o755 },
        );
        p.env.PATH = p.env
          .PATH!.split(delimiter)
          .filter((d) => d !== join(REPO_ROOT, "bin"))
          .join(delimiter);
        await pulumi(p, "plugin", "install", "resource", "cws", "0.1.0", "--file", pluginDir);

        await pulumi(p, "stack", "init", "dev");
        await pulumi(p, "config", "set", "cws:baseUrl", server.baseUrl);
        await pulumi(p, "config", "set", "cws:org", "demo");
        await pulumi(p, "config", "set", "--secret", "cws:apiToken", "demo-token");

        const up = await pulumi(p, "up", "--yes", "--skip-preview");
        expect(up).toMatch(/\+ 3 created/);
        // Pulumi warns of each plugin it takes from PATH (3.276 also of the language host, which
        // is on PATH here): the cws plugin is not among them.
        expect(up).not.toContain("pulumi-resource-cws from $PATH");
        const out = JSON.parse(await pulumi(p, "stack", "output", "--json")) as Record<string, unknown>;
        expect(out).toMatchObject({
          status: "running",
          costPerHour: expect.any(Number),
          activeRegions: ["eu-west-1", "us-east-1"],
        });
        const live = await liveResources(server);
        expect(live.workloads.map((w) => [w.uid, w.name, w.type, w.state?.status])).toEqual([
          [out.workloadUid, "web", "RENTAL", "running"],
        ]);
        expect(live.ssh_keys.map((k) => k.uid)).toEqual([out.sshKeyUid]);

        await pulumi(p, "preview", "--expect-no-changes");
        const refresh = await pulumi(p, "refresh", "--yes", "--skip-preview");
        expect(refresh).toMatch(/3 unchanged/);
        await pulumi(p, "preview", "--expect-no-changes");
        expect(filesContaining(p.state, "demo-token")).toEqual([]);

        await pulumi(p, "destroy", "--yes", "--skip-preview");
        const after = await liveResources(server);
        expect([after.workloads, after.ssh_keys]).toEqual([[], []]);
      } finally {
        p.cleanup();
      }
    },
  );
});
