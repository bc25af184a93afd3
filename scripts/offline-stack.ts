/**
 * Pulumi stacks that never touch the network: a file backend and PULUMI_HOME in a temp dir,
 * a passphrase for secrets, update checks and plugin downloads off, and the CLI built by
 * `npm run pulumi:build` (scripts/toolchain/pulumi.ts). Programs are inline (run in this process
 * through the Automation API's language server), so no language-host binary is needed.
 */
import {
  LocalWorkspace,
  PulumiCommand,
  Stack,
  type ConfigMap,
  type PulumiFn,
} from "@pulumi/pulumi/automation/index.js";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { REPO_ROOT } from "./repo-root.ts";
import { pulumiRoot, pulumiVersion } from "./toolchain/pulumi.ts";

export interface OfflineStackOptions {
  projectName: string;
  program: PulumiFn;
  stackName?: string;
  config?: ConfigMap;
  /** Extra environment for the engine and the provider plugins it starts. */
  env?: Record<string, string>;
  /**
   * A shared backend (an `s3://` bucket, another `file://` dir) instead of the temp dir's own:
   * the stack is selected when it is there already (another workspace made it).
   */
  backendUrl?: string;
}

export interface OfflineStack {
  stack: Stack;
  /** The temp dir holding the backend, PULUMI_HOME and the project. */
  dir: string;
  /** Environment the engine runs with (for `pulumi` commands run by hand). */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export const PASSPHRASE = "cws-local-passphrase";

/** Node option under which `pulumi-cws/...` resolves to this checkout's TypeScript sources. */
export const SOURCE_CONDITION = "--conditions=pulumi-cws-source";

/**
 * NODE_OPTIONS of the processes the engine starts (the dynamic provider's among them): with
 * SOURCE_CONDITION, so that a checkout never runs a stale dist/; without it under the tests
 * (CWS_RUN_BUILD=1: dist/ is built from the sources as they are, test/global-setup.ts), so that
 * `pulumi-cws/...` loads the compiled package and its bundles, as installed.
 */
export function engineNodeOptions(): string {
  const source = process.env.CWS_RUN_BUILD ? undefined : SOURCE_CONDITION;
  return [process.env.NODE_OPTIONS, source].filter(Boolean).join(" ");
}

/** The built CLI; a clear error (never a skip) when it is missing. */
export async function pulumiCommand(): Promise<PulumiCommand> {
  const root = pulumiRoot();
  if (!existsSync(join(root, "bin", "pulumi"))) {
    throw new Error(
      `the Pulumi CLI v${pulumiVersion()} is not built (${root}/bin/pulumi is missing): run \`npm run pulumi:build\``,
    );
  }
  return PulumiCommand.get({ root });
}

/**
 * The environment of an engine that stays offline: a file backend and PULUMI_HOME in the given
 * dirs, the passphrase, no update checks or plugin downloads, and PATH with this Node (the
 * engine starts plugins with `node` from PATH) and the CLI's bin/ first.
 */
export function offlineEnv(backend: string, home: string): Record<string, string> {
  return {
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_HOME: home,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PATH: [dirname(process.execPath), join(pulumiRoot(), "bin"), process.env.PATH ?? ""].join(delimiter),
  };
}

export async function offlineStack(opts: OfflineStackOptions): Promise<OfflineStack> {
  const dir = mkdtempSync(join(tmpdir(), `cws-${opts.projectName}-`));
  const workDir = join(dir, "project");
  const home = join(dir, "home");
  const backend = join(dir, "state");
  for (const d of [workDir, home, backend]) mkdirSync(d, { recursive: true });
  // Provider plugins resolve `@pulumi/pulumi` and `pulumi-cws` from the project dir.
  symlinkSync(join(REPO_ROOT, "node_modules"), join(workDir, "node_modules"));
  const cmd = await pulumiCommand();
  const backendUrl = opts.backendUrl ?? `file://${backend}`;
  const env: Record<string, string> = {
    ...offlineEnv(backend, home),
    PULUMI_BACKEND_URL: backendUrl,
    // The provider process loads `pulumi-cws/provider/dynamic` by name (package.json exports).
    NODE_OPTIONS: engineNodeOptions(),
    ...opts.env,
  };
  const ws = await LocalWorkspace.create({
    workDir,
    pulumiHome: home,
    pulumiCommand: cmd,
    envVars: env,
    program: opts.program,
    projectSettings: { name: opts.projectName, runtime: "nodejs", backend: { url: backendUrl } },
  });
  const stackName = opts.stackName ?? "dev";
  const stack = opts.backendUrl
    ? await Stack.createOrSelect(stackName, ws)
    : await Stack.create(stackName, ws);
  if (opts.config) await stack.setAllConfig(opts.config);
  return {
    stack,
    dir,
    env,
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
