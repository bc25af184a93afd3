/**
 * A new user's first command with one typo in the endpoint, in each tool: the real `pulumi up` of
 * a YAML program (the native plugin), an Automation API `up` of the dynamic provider, `tofu apply`,
 * `cws adopt` and `cws list`, each creating (or reading) one thing at `baseUrl`, timed. The suite
 * (unreachable.test.ts) runs them against a closed port; bench/unreachable.ts times them at the
 * default window beside the same commands against a live server.
 */
import { join } from "node:path";
import { runProcess } from "../../../scripts/run.ts";
import { DEMO_TOKEN, type ApiServer } from "../../helpers/http.ts";
import { programDir } from "../../helpers/program-dir.ts";
import type { TestServer } from "../../helpers/server.ts";
import { sshKey } from "../../helpers/ssh-keys.ts";
import { cwsStack, failureOf } from "../../helpers/stacks.ts";
import { FRONT_ENDS } from "../../helpers/front-ends.ts";
import { expectExit, tofuProject } from "../../helpers/tofu.ts";

const PROGRAM = join(import.meta.dirname, "fixtures", "yaml-unreachable");
const CWS = join(import.meta.dirname, "..", "..", "..", "cli", "cws.ts");

/** What a command did: its exit (0 for success), all it printed (or its error), and how long it took. */
export interface Ran {
  ok: boolean;
  output: string;
  ms: number;
}

/** The unreachable window, when the run sets one (seconds); unset: the default. */
export type Window = number | undefined;

async function timed(fn: () => Promise<{ ok: boolean; output: string }>): Promise<Ran> {
  const start = Date.now();
  const r = await fn();
  return { ...r, ms: Date.now() - start };
}

/** `pulumi up --skip-preview` of a YAML program of one SSH key, the plugin pointed at `baseUrl` (CWS_BASE_URL). */
export async function yamlUp(server: TestServer, baseUrl: string, window: Window): Promise<Ran> {
  const p = programDir("yaml-unreachable", PROGRAM, server);
  const env = {
    ...p.env,
    CWS_BASE_URL: baseUrl,
    ...(window ? { CWS_UNREACHABLE_TIMEOUT_SEC: String(window) } : {}),
  };
  try {
    await runProcess("pulumi", ["stack", "init", "dev", "--non-interactive"], { cwd: p.project, env });
    return await timed(async () => {
      const up = await runProcess("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
        cwd: p.project,
        env,
        allowFailure: true,
      });
      return { ok: up.code === 0, output: up.output };
    });
  } finally {
    p.cleanup();
  }
}

/** An Automation API `up` of one SSH key through the dynamic provider, `cws:baseUrl` set to `baseUrl`. */
export async function dynamicUp(server: ApiServer, baseUrl: string, window: Window): Promise<Ran> {
  const dynamic = FRONT_ENDS.find((f) => f.name === "dynamic")!;
  const s = await cwsStack(
    server,
    "unreachable-dynamic",
    async () => {
      new dynamic.sdk.SshKey("deploy", { name: `deploy-${Date.now()}`, publicKey: sshKey(1) });
    },
    {
      "cws:baseUrl": { value: baseUrl },
      ...(window ? { "cws:unreachableTimeoutSec": { value: String(window) } } : {}),
    },
  );
  try {
    return await timed(async () => {
      const failure = await failureOf(s.stack.up());
      return { ok: !failure, output: String(failure ?? "") };
    });
  } finally {
    await s.stack.destroy().catch(() => undefined);
    await s.cleanup();
  }
}

/** `tofu apply` of one SSH key with the provider block's `endpoint` at `baseUrl` (provider log at INFO). */
export async function tofuApply(server: ApiServer, baseUrl: string, window: Window): Promise<Ran> {
  const p = tofuProject(
    server,
    {
      "main.tf": `
terraform {
  required_providers {
    cws = { source = "cws/cws" }
  }
}
provider "cws" {
  endpoint = "${baseUrl}"${window ? `\n  unreachable_timeout_sec = ${window}` : ""}
}
resource "cws_ssh_key" "deploy" {
  name       = "deploy-${Date.now()}"
  public_key = "${sshKey(2)}"
}
`,
    },
    { TF_LOG_PROVIDER: "INFO" },
  );
  try {
    expectExit(await p.run("init"), 0);
    const ran = await timed(async () => {
      const apply = await p.run("apply", "-auto-approve");
      return { ok: apply.code === 0, output: apply.output };
    });
    if (ran.ok) await p.run("destroy", "-auto-approve");
    return ran;
  } finally {
    p.cleanup();
  }
}

/** `cws ARGS` (`adopt --format pulumi`, `list`) against the org at `baseUrl` (CWS_BASE_URL). */
export function cws(args: string[], baseUrl: string, window: Window): Promise<Ran> {
  return timed(async () => {
    const r = await runProcess(process.execPath, [CWS, ...args], {
      env: {
        ...process.env,
        CWS_BASE_URL: baseUrl,
        CWS_ORG: "demo",
        CWS_API_TOKEN: DEMO_TOKEN,
        ...(window ? { CWS_UNREACHABLE_TIMEOUT_SEC: String(window) } : {}),
      },
      allowFailure: true,
    });
    return { ok: r.code === 0, output: r.output };
  });
}
