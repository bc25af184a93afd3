/**
 * Where the Pulumi CLI used by this project lives, and how to get it.
 *
 * The CLI is built from the Go module proxy at the version of `@pulumi/pulumi` in package.json,
 * through the wrapper module in tools/pulumi-cli, and cached outside the clone (keyed by version),
 * so a later clone on the same machine reuses it.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  copyFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { REPO_ROOT } from "./repo-root.ts";

const WRAPPER_DIR = join(REPO_ROOT, "tools", "pulumi-cli");
const YAML_WRAPPER_DIR = join(REPO_ROOT, "tools", "pulumi-yaml");
const YAML_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
const CLI_PACKAGE = "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi";
const VERSION_VAR = "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version";

/** The exact `@pulumi/pulumi` version the project depends on (the CLI must match it). */
export function pulumiVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  const v = String(pkg.dependencies["@pulumi/pulumi"]);
  if (!/^\d+\.\d+\.\d+$/.test(v))
    throw new Error(`@pulumi/pulumi must be pinned to an exact version in package.json (got ${v})`);
  return v;
}

/** Root of the cached toolchain: `<root>/bin/pulumi` (the layout `PulumiCommand.get({ root })` expects). */
export function pulumiRoot(version = pulumiVersion()): string {
  const base =
    process.env.CWS_PULUMI_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-cws");
  return join(base, `pulumi-v${version}`);
}

function versionOf(binary: string): string | undefined {
  try {
    return execFileSync(binary, ["version"], { encoding: "utf8", timeout: 30_000 }).trim().replace(/^v/, "");
  } catch {
    return undefined;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The dynamic-provider plugin launcher shipped at the root of the `@pulumi/pulumi` npm package.
 * Beside the CLI it is found without any download.
 */
function installLauncher(binDir: string): void {
  const source = join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "pulumi-resource-pulumi-nodejs");
  if (!existsSync(source)) throw new Error(`${source} is missing: run npm ci first`);
  const target = join(binDir, "pulumi-resource-pulumi-nodejs");
  copyFileSync(source, target);
  chmodSync(target, 0o755);
}

function wrapperVersion(): string {
  const gomod = readFileSync(join(WRAPPER_DIR, "go.mod"), "utf8");
  const m = gomod.match(/github\.com\/pulumi\/pulumi\/pkg\/v3 v(\S+)/);
  if (!m) throw new Error(`${WRAPPER_DIR}/go.mod does not require github.com/pulumi/pulumi/pkg/v3`);
  return m[1]!;
}

/** Runs a command; with `progress`, its stderr lines are counted and reported instead of printed. */
function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  progress?: (lines: number) => void,
): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "inherit", progress ? "pipe" : "inherit"] });
    let lines = 0;
    let tail = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      for (const ch of text) if (ch === "\n") progress?.(++lines);
    });
    child.on("exit", (code) => {
      if (code !== 0 && progress) process.stderr.write(tail);
    });
    child.on("error", (e) => reject(new Error(`could not start ${cmd}: ${e.message}`)));
    child.on("exit", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}`)),
    );
  });
}

/** `go build` of `pkg` in a wrapper module into `out`, counting compiled packages as progress. */
export async function goBuild(
  what: string,
  pkg: string,
  wrapperDir: string,
  ldflags: string,
  out: string,
  log: (s: string) => void,
): Promise<void> {
  const go = onPath("go");
  if (!go)
    throw new Error(
      `Go is not installed (no \`go\` on PATH): it is needed once to build ${what} from the Go module proxy`,
    );
  mkdirSync(dirname(out), { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=mod" };
  log(`downloading modules and compiling ${what} (CGO_ENABLED=0, tags osusergo,grpcnotrace)...`);
  const tmp = `${out}.tmp-${process.pid}`;
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  let compiled = 0;
  // Progress every 250 packages, and every 30 s while the linker or a large package runs.
  const ticker = setInterval(() => log(`still building (${compiled} packages, ${seconds()}s)`), 30_000);
  try {
    await runBuild(
      go,
      ["build", "-v", "-tags", "osusergo,grpcnotrace", "-ldflags", ldflags, "-o", tmp, pkg],
      wrapperDir,
      env,
      (n) => {
        compiled = n;
        if (n % 250 === 0) log(`compiled ${n} packages (${seconds()}s)`);
      },
    );
  } finally {
    clearInterval(ticker);
  }
  renameSync(tmp, out);
  log(`built ${what} in ${Math.round((Date.now() - started) / 1000)}s`);
}

/** Builds the CLI from the Go module proxy into `<root>/bin`. */
async function build(version: string, root: string, log: (s: string) => void): Promise<void> {
  if (wrapperVersion() !== version) {
    throw new Error(
      `tools/pulumi-cli/go.mod pins pulumi v${wrapperVersion()} but package.json has @pulumi/pulumi ${version}; ` +
        `update the wrapper module (see tools/pulumi-cli/README.md)`,
    );
  }
  log(
    `building the Pulumi CLI v${version} from the Go module proxy (${process.env.GOPROXY ?? "default proxy"}); the first build takes several minutes`,
  );
  await goBuild(
    `pulumi v${version}`,
    CLI_PACKAGE,
    WRAPPER_DIR,
    `-s -w -X ${VERSION_VAR}=v${version}`,
    join(root, "bin", "pulumi"),
    log,
  );
}

/** The pulumi-yaml release tools/pulumi-yaml/go.mod pins. */
export function yamlHostVersion(): string {
  const gomod = readFileSync(join(YAML_WRAPPER_DIR, "go.mod"), "utf8");
  const m = gomod.match(/github\.com\/pulumi\/pulumi-yaml v(\S+)/);
  if (!m) throw new Error(`${YAML_WRAPPER_DIR}/go.mod does not require github.com/pulumi/pulumi-yaml`);
  return m[1]!;
}

/**
 * The YAML language host beside the CLI (`<root>/bin/pulumi-language-yaml`), built from the Go
 * module proxy through tools/pulumi-yaml when missing or of another release. `pulumi import` and
 * `pulumi up` of YAML projects need it.
 */
export async function ensureYamlHost(root: string, log: (s: string) => void): Promise<string> {
  return ensureCachedBuild(
    {
      what: "pulumi-language-yaml",
      version: yamlHostVersion(),
      pkg: YAML_PACKAGE,
      wrapperDir: YAML_WRAPPER_DIR,
    },
    join(root, "bin", "pulumi-language-yaml"),
    log,
  );
}

/** A Go program of a pinned release, built from a wrapper module of tools/. */
export interface GoTool {
  what: string;
  version: string;
  pkg: string;
  wrapperDir: string;
  ldflags?: string;
}

/**
 * `binary`, built through the tool's wrapper module when missing or of another release (a
 * `<binary>.version` marker beside it says which release it is).
 */
export async function ensureCachedBuild(
  tool: GoTool,
  binary: string,
  log: (s: string) => void,
): Promise<string> {
  const marker = `${binary}.version`;
  if (existsSync(binary) && existsSync(marker) && readFileSync(marker, "utf8").trim() === tool.version) {
    log(`using cached ${tool.what} v${tool.version} at ${binary}`);
    return binary;
  }
  log(`building ${tool.what} v${tool.version} from the Go module proxy; the first build takes a few minutes`);
  const what = `${tool.what} v${tool.version}`;
  await goBuild(what, tool.pkg, tool.wrapperDir, tool.ldflags ?? "-s -w", binary, log);
  writeFileSync(marker, `${tool.version}\n`);
  return binary;
}

async function runBuild(...args: Parameters<typeof run>): Promise<void> {
  try {
    await run(...args);
  } catch (e) {
    throw new Error(
      `${(e as Error).message}. If the output above shows a download failure, check that the Go module proxy is reachable (GOPROXY=${process.env.GOPROXY ?? "https://proxy.golang.org"})`,
    );
  }
}

/**
 * Makes sure a Pulumi CLI of the right version is available and returns its root
 * (`<root>/bin/pulumi`, with the dynamic-provider launcher and the YAML language host beside it).
 * Order: the cache; a `pulumi` on PATH of the right version (linked into the cache); a build.
 */
export async function ensurePulumi(
  log: (s: string) => void = (s) => console.error(`[pulumi] ${s}`),
): Promise<string> {
  const version = pulumiVersion();
  const root = pulumiRoot(version);
  const binDir = join(root, "bin");
  const cached = join(binDir, "pulumi");
  if (existsSync(cached) && versionOf(cached) === version) {
    log(`using cached pulumi v${version} at ${cached}`);
  } else {
    const existing = onPath("pulumi");
    if (existing && versionOf(existing) === version) {
      log(`using pulumi v${version} found on PATH at ${existing}`);
      mkdirSync(binDir, { recursive: true });
      copyFileSync(existing, cached);
      chmodSync(cached, 0o755);
    } else {
      if (existing)
        log(`pulumi on PATH (${existing}) is v${versionOf(existing) ?? "?"}, not v${version}: building`);
      await build(version, root, log);
    }
  }
  installLauncher(binDir);
  const got = versionOf(cached);
  if (got !== version) throw new Error(`${cached} reports version '${got ?? ""}', expected ${version}`);
  await ensureYamlHost(root, log);
  return root;
}
