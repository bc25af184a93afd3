/**
 * HCL projects pointed at a test server, run with the real `tofu` (scripts/toolchain/tofu.ts) or
 * `terraform` (scripts/toolchain/terraform.ts) as a user runs them: the provider installed offline
 * from a local filesystem mirror that holds this checkout's `terraform-provider-cws`, `init`
 * resolving it from there. HCL_TOOLS is the list the end-to-end suites run each scenario under
 * (OpenTofu 1.12.6 and Terraform 1.16.4, whose build keeps the `pg` state backend the team tests
 * share); a project may also run another release (an older OpenTofu, to see what its users get)
 * where its behaviour differs. NEXT_HCL_TOOLS are the betas `npm run test:next` runs.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { zipEntries } from "../../scripts/release/reproducible.ts";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { runProcess } from "../../scripts/run.ts";
import {
  NEXT_TERRAFORM_VERSION,
  TERRAFORM_VERSION,
  terraformPath,
} from "../../scripts/toolchain/terraform.ts";
import {
  NEXT_TOFU_VERSION,
  REGISTRY_HOSTS,
  TOFU_VERSION,
  mirrorEnv,
  tofuPath,
} from "../../scripts/toolchain/tofu.ts";
import { DEMO_TOKEN, type ApiServer } from "./http.ts";

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const PLATFORM = `${process.platform}_${process.arch === "x64" ? "amd64" : process.arch}`;

/** An HCL tool the suites run: OpenTofu or HashiCorp Terraform, at the release setup builds. */
export interface HclTool {
  /** `opentofu` or `terraform`: how test titles and drivers name it. */
  name: "opentofu" | "terraform";
  /** What it calls itself in `version`: `OpenTofu`, `Terraform`. */
  product: string;
  /** The command users type. */
  command: string;
  version: string;
  path: string;
  /** The npm script that builds it. */
  build: string;
}

/** OpenTofu at `version` (the cached build of scripts/toolchain/tofu.ts). */
function openTofu(version: string, build: string): HclTool {
  return { name: "opentofu", product: "OpenTofu", command: "tofu", version, path: tofuPath(version), build };
}

/** HashiCorp Terraform at `version` (the cached build of scripts/toolchain/terraform.ts). */
function terraform(version: string, build: string): HclTool {
  const path = terraformPath(version);
  return { name: "terraform", product: "Terraform", command: "terraform", version, path, build };
}

/**
 * The next releases (betas), which `npm run test:next` builds and runs the HCL suites under;
 * never part of `npm test`, so that a beta cannot break it.
 */
export const NEXT_HCL_TOOLS: readonly HclTool[] = [
  openTofu(NEXT_TOFU_VERSION, "test:next"),
  terraform(NEXT_TERRAFORM_VERSION, "test:next"),
];

/**
 * Set by `npm run test:next` (vitest.next.config.ts): the HCL suites it runs then take the next
 * releases as OPENTOFU and TERRAFORM, so every case they hold runs under the betas as written.
 */
export const UNDER_NEXT = process.env.CWS_HCL_NEXT === "1";

export const OPENTOFU = UNDER_NEXT ? NEXT_HCL_TOOLS[0]! : openTofu(TOFU_VERSION, "tofu:build");
export const TERRAFORM = UNDER_NEXT ? NEXT_HCL_TOOLS[1]! : terraform(TERRAFORM_VERSION, "terraform:build");

/** Every HCL scenario runs under each of these (older releases only where behaviour differs). */
export const HCL_TOOLS: readonly HclTool[] = [OPENTOFU, TERRAFORM];

/** `OpenTofu 1.12.6`: the tool and release, as a test title says it. */
export const toolTitle = (tool: HclTool) => `${tool.product} ${tool.version}`;

/** Fails with the command that builds the tool when its binary is missing. */
export function requireTool(tool: HclTool): void {
  if (!existsSync(tool.path)) throw new Error(`${tool.path} is missing: run npm run ${tool.build}`);
}

export interface TofuRun {
  /** The command as typed (`terraform plan -var ...`), for messages. */
  command: string;
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together. */
  output: string;
}

export interface TofuProject {
  dir: string;
  run(...args: string[]): Promise<TofuRun>;
  /** Writes (or replaces) a file of the project. */
  write(name: string, text: string): void;
  cleanup(): void;
}

/**
 * A filesystem mirror (unpacked layout) holding the provider as `cws/cws` at the package's
 * version, for both tools: `<host>/cws/cws/<version>/<os>_<arch>/terraform-provider-cws_v<version>`
 * under `registry.opentofu.org` (what OpenTofu means by `cws/cws`) and `registry.terraform.io`
 * (what Terraform means).
 */
export function writeMirror(dir: string): void {
  for (const host of REGISTRY_HOSTS) {
    const pkg = join(dir, host, "cws", "cws", VERSION, PLATFORM);
    mkdirSync(pkg, { recursive: true });
    const exe = join(pkg, `terraform-provider-cws_v${VERSION}`);
    writeFileSync(exe, `#!/bin/sh\nexec "${join(REPO_ROOT, "bin", "terraform-provider-cws")}" "$@"\n`);
    chmodSync(exe, 0o755);
  }
}

/**
 * A project in a temporary directory, set up to run against `server` with `tool` (OpenTofu when
 * left out; a path runs that binary): a copy of `source` (a folder of .tf files), or the files
 * given by name.
 */
export function tofuProject(
  server: ApiServer,
  source: string | Record<string, string>,
  env: Record<string, string> = {},
  tool: HclTool | string = OPENTOFU,
): TofuProject {
  const tofu = typeof tool === "string" ? tool : tool.path;
  const name = typeof tool === "string" ? basename(tool) : tool.command;
  const root = mkdtempSync(join(tmpdir(), "cws-tofu-"));
  const dir = join(root, "project");
  if (typeof source === "string") {
    cpSync(source, dir, {
      recursive: true,
      filter: (s) => !s.includes(".terraform") && !s.endsWith(".tfstate"),
    });
  } else {
    mkdirSync(dir);
    for (const [name, text] of Object.entries(source)) writeFileSync(join(dir, name), text);
  }
  const mirror = join(root, "mirror");
  writeMirror(mirror);
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...mirrorEnv(root, mirror),
    CWS_BASE_URL: server.baseUrl,
    CWS_ORG: "demo",
    CWS_API_TOKEN: DEMO_TOKEN,
    ...env,
  };
  return {
    dir,
    run: async (...args) => {
      const flags = args[0] === "init" || args[0] === "version" ? [] : ["-no-color"];
      const r = await runProcess(tofu, [...args, ...flags], {
        cwd: dir,
        env: fullEnv,
        allowFailure: true,
      });
      return {
        command: [name, ...args].join(" "),
        code: r.code ?? 1,
        stdout: r.stdout,
        stderr: r.stderr,
        output: `${r.stdout}\n${r.stderr}`,
      };
    },
    write: (name, text) => writeFileSync(join(dir, name), text),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The run, failing the test with the tool's own words when it did not exit with `code`. */
export function expectExit(r: TofuRun, code: number): TofuRun {
  if (r.code !== code) throw new Error(`${r.command} exited with ${r.code}, expected ${code}:\n${r.output}`);
  return r;
}

/** `init` and `validate` of a project, which must say the configuration is valid; then its cleanup. */
export async function expectValidConfig(p: TofuProject): Promise<void> {
  try {
    expectExit(await p.run("init"), 0);
    const validate = expectExit(await p.run("validate"), 0);
    if (!/The configuration is valid/.test(validate.output))
      throw new Error(`${validate.command} did not say the configuration is valid:\n${validate.output}`);
  } finally {
    p.cleanup();
  }
}

/** The run's output with the tool's line wrapping undone. */
export const words = (r: TofuRun) => r.output.replace(/\s+/g, " ");

/**
 * The files of a saved plan (`tofu plan -out`), a zip archive, by name with their content
 * uncompressed: what a search of the plan file for a secret must look at.
 */
export function planFileEntries(path: string): Record<string, Buffer> {
  return Object.fromEntries(zipEntries(readFileSync(path)).map((e) => [e.name, e.data]));
}
