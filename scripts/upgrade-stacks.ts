/**
 * The stacks of the recorded upgrade set (test/fixtures/upgrade/<version>/), for the script that
 * records them (record-upgrade-fixtures.ts) and the test that replays them with the current
 * provider (test/e2e/pulumi/upgrade.test.ts). One stack per front end, both driven by the real CLI:
 * - dynamic: the TypeScript program `program.ts`, inline through the Automation API;
 * - native: the YAML project `Pulumi.yaml` in a project directory, the plugin found on PATH.
 * The provider reads the service's address and token from CWS_BASE_URL, CWS_ORG and
 * CWS_API_TOKEN, so neither the state nor the stack's config file names a port.
 */
import type { PulumiFn } from "@pulumi/pulumi/automation/index.js";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";
import { offlineEnv, offlineStack } from "./offline-stack.ts";
import { REPO_ROOT } from "./repo-root.ts";
import { run } from "./run.ts";

export type FrontEndName = "dynamic" | "native";
export const UPGRADE_FRONT_ENDS: FrontEndName[] = ["dynamic", "native"];

/** The program's file in a front end's directory. */
export const PROGRAM: Record<FrontEndName, string> = { dynamic: "program.ts", native: "Pulumi.yaml" };

/** Secrets of the recorded stacks: test values, kept encrypted in the state. */
export const RECORDED_SECRETS = {
  vmPassword: "upgrade-vm-pass-3f9c",
  registryPassword: "upgrade-registry-pass-7b21",
};

/** The stack every recorded set uses. */
export const STACK = "dev";

/** The stack's config file: its secrets' salt and its config (no address, no token). */
export const CONFIG_FILE = `Pulumi.${STACK}.yaml`;

export interface UpgradeStack {
  /** The directory holding the project (and its CONFIG_FILE). */
  projectDir: string;
  /** Everything the engine keeps: the backend and PULUMI_HOME. */
  stateDir: string;
  /** A `pulumi` command on the stack; resolves to its output, rejects with it on failure. */
  pulumi(...args: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

/** The environment that points the provider at the service. */
function serviceEnv(baseUrl: string, token: string): Record<string, string> {
  return { CWS_BASE_URL: baseUrl, CWS_ORG: "demo", CWS_API_TOKEN: token };
}

/**
 * The dynamic front end's stack: `programFile` exports `program()`, run inline. Commands other
 * than the program's own go to the CLI with the workspace's environment; `up`, `preview`,
 * `refresh` and `destroy` run through the Automation API (its inline program needs this process).
 */
export async function dynamicStack(
  programFile: string,
  baseUrl: string,
  token: string,
): Promise<UpgradeStack> {
  const mod = (await import(pathToFileURL(programFile).href)) as { program: () => Record<string, unknown> };
  const program: PulumiFn = async () => mod.program();
  const s = await offlineStack({
    projectName: "upgrade-dynamic",
    stackName: STACK,
    program,
    env: serviceEnv(baseUrl, token),
  });
  const projectDir = join(s.dir, "project");
  const quiet = { onOutput: () => {} };
  const auto: Record<string, (flags: string[]) => Promise<string>> = {
    up: async () => (await s.stack.up(quiet)).stdout,
    preview: async (flags) =>
      (await s.stack.preview({ ...quiet, expectNoChanges: flags.includes("--expect-no-changes") })).stdout,
    refresh: async (flags) =>
      (await s.stack.refresh({ ...quiet, expectNoChanges: flags.includes("--expect-no-changes") })).stdout,
    destroy: async () => (await s.stack.destroy(quiet)).stdout,
  };
  return {
    projectDir,
    stateDir: join(s.dir, "state"),
    async pulumi(cmd, ...rest) {
      const viaAuto = auto[cmd!];
      if (viaAuto) return viaAuto(rest);
      const cli = s.stack.workspace.pulumiCommand.command;
      return run(cli, [cmd!, ...rest, "--non-interactive", "--stack", STACK], {
        cwd: projectDir,
        env: { ...process.env, ...s.env },
      });
    },
    cleanup: () => s.cleanup(),
  };
}

/** The native plugin's stack: a copy of `projectSource` (a YAML project) run by the CLI. */
export async function nativeStack(
  projectSource: string,
  baseUrl: string,
  token: string,
): Promise<UpgradeStack> {
  const root = mkdtempSync(join(tmpdir(), "cws-upgrade-native-"));
  const projectDir = join(root, "project");
  const backend = join(root, "backend");
  const home = join(root, "home");
  for (const d of [backend, home]) mkdirSync(d, { recursive: true });
  cpSync(projectSource, projectDir, { recursive: true });
  const base = offlineEnv(backend, home);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...base,
    // The plugin's launcher (bin/pulumi-resource-cws) beside this Node and the CLI.
    PATH: [join(REPO_ROOT, "bin"), base.PATH].join(delimiter),
    ...serviceEnv(baseUrl, token),
  };
  const stack = {
    projectDir,
    stateDir: root,
    pulumi: (...args: string[]) =>
      run("pulumi", [...args, "--non-interactive", ...(args[0] === "stack" ? [] : ["--stack", STACK])], {
        cwd: projectDir,
        env,
      }),
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
  await stack.pulumi("stack", "init", STACK);
  return stack;
}

export function upgradeStack(
  frontEnd: FrontEndName,
  programDir: string,
  baseUrl: string,
  token: string,
): Promise<UpgradeStack> {
  return frontEnd === "dynamic"
    ? dynamicStack(join(programDir, PROGRAM.dynamic), baseUrl, token)
    : nativeStack(programDir, baseUrl, token);
}
