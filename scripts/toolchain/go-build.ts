/**
 * The steps every Go program of the toolchain shares (the Pulumi CLI, its YAML and Java language
 * hosts, gen-sdk, OpenTofu): the cache they are built into (outside the clone, so a later clone on
 * the same machine reuses them), the release a wrapper module of tools/ pins, the Go release a
 * module asks for when it is newer than the installed one, and `go build` from the Go module proxy
 * with progress, into a temporary file renamed into place when it succeeds.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onPath, run, runProcess } from "../run.ts";
import { seconds, type Log } from "./log.ts";

/** The build tags of every toolchain build: no cgo user lookup, no gRPC tracing. */
const BUILD_TAGS = "osusergo,grpcnotrace";

/**
 * The toolchain's build settings. Go programs built with the same ones reuse the packages the CLI
 * build compiled into Go's build cache (most of the Pulumi SDK), instead of compiling them again.
 */
export const GO_BUILD_ENV = { CGO_ENABLED: "0", GOFLAGS: `-tags=${BUILD_TAGS}` };

/** The cache of built tools, `~/.cache/pulumi-cws` (or `$XDG_CACHE_HOME/pulumi-cws`, or `$CWS_PULUMI_CACHE`). */
export function toolchainCache(): string {
  return (
    process.env.CWS_PULUMI_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-cws")
  );
}

/** The version of `modulePath` that the go.mod in `moduleDir` requires. */
export function requiredVersion(moduleDir: string, modulePath: string): string {
  const gomod = readFileSync(join(moduleDir, "go.mod"), "utf8");
  const m = gomod.match(new RegExp(`${modulePath.replace(/[.\\/]/g, "\\$&")} v(\\S+)`));
  if (!m) throw new Error(`${moduleDir}/go.mod does not require ${modulePath}`);
  return m[1]!;
}

/** `[major, minor, patch]` of a Go version (`1.27`, `1.26.8`, `go1.26.8`); undefined when it is none. */
function goVersionParts(text: string): [number, number, number] | undefined {
  const m = /^(?:go)?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/**
 * The environment that lets the go command work with a module whose `go` line is `goLine`: none
 * when the installed Go is that release or newer; otherwise `GOTOOLCHAIN` naming that release
 * (`go1.27.0` for `go 1.27`), which the go command fetches once from the Go module proxy
 * (`golang.org/toolchain`) into its module cache. OpenTofu 1.13 asks for Go 1.27.
 */
export function goToolchainEnv(goLine: string): Record<string, string> {
  const wanted = goVersionParts(goLine);
  const installed = goVersionParts(execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8" }));
  if (!wanted || !installed) return {};
  const newer = wanted.findIndex((n, i) => n !== installed[i]);
  if (newer === -1 || wanted[newer]! < installed[newer]!) return {};
  return { GOTOOLCHAIN: `go${wanted.join(".")}` };
}

/** The `go` line of the go.mod file `path`. */
function goLineOfFile(path: string): string {
  return /^go (\S+)/m.exec(readFileSync(path, "utf8"))?.[1] ?? "";
}

/** The `go` line of the go.mod in `moduleDir`. */
const goLineOf = (moduleDir: string) => goLineOfFile(join(moduleDir, "go.mod"));

/** goToolchainEnv for `module@version`, asked of the Go module proxy before it is downloaded. */
export async function moduleToolchainEnv(moduleAtVersion: string): Promise<Record<string, string>> {
  const r = await runProcess("go", ["list", "-m", "-json", moduleAtVersion], {
    cwd: tmpdir(),
    env: { ...process.env, GOFLAGS: "-mod=mod" },
    allowFailure: true,
  });
  try {
    // The module's own go.mod (the go command downloads it for the listing) holds its `go` line.
    const { GoMod } = JSON.parse(r.stdout) as { GoMod?: string };
    return goToolchainEnv(GoMod ? goLineOfFile(GoMod) : "");
  } catch {
    // No answer: the download that follows says what went wrong.
    return {};
  }
}

/**
 * `go build` of `pkg` in the module `moduleDir` into `out`, counting compiled packages as progress,
 * with the Go release the module asks for (goToolchainEnv); for the operating system `goos` (Go's
 * name, `windows`) when given, else this machine's.
 */
export async function goBuild(
  what: string,
  pkg: string,
  moduleDir: string,
  ldflags: string,
  out: string,
  log: Log,
  goos?: string,
): Promise<void> {
  const go = onPath("go");
  if (!go)
    throw new Error(
      `Go is not installed (no \`go\` on PATH): it is needed once to build ${what} from the Go module proxy`,
    );
  mkdirSync(dirname(out), { recursive: true });
  const toolchain = goToolchainEnv(goLineOf(moduleDir));
  const withGo = toolchain.GOTOOLCHAIN ? `, ${toolchain.GOTOOLCHAIN} from the Go module proxy` : "";
  log(`downloading modules and compiling ${what} (CGO_ENABLED=0, tags ${BUILD_TAGS}${withGo})...`);
  const tmp = `${out}.tmp-${process.pid}`;
  const started = Date.now();
  let compiled = 0;
  // Progress every 250 packages, and every 30 s while the linker or a large package runs.
  const ticker = setInterval(() => log(`still building (${compiled} packages, ${seconds(started)})`), 30_000);
  try {
    await run(go, ["build", "-v", "-tags", BUILD_TAGS, "-ldflags", ldflags, "-o", tmp, pkg], {
      cwd: moduleDir,
      env: {
        ...process.env,
        CGO_ENABLED: GO_BUILD_ENV.CGO_ENABLED,
        GOFLAGS: "-mod=mod",
        ...toolchain,
        ...(goos ? { GOOS: goos } : {}),
      },
      onStderrLine: (n) => {
        compiled = n;
        if (n % 250 === 0) log(`compiled ${n} packages (${seconds(started)})`);
      },
    });
  } catch (e) {
    throw new Error(
      `${(e as Error).message}\nIf this shows a download failure, check that the Go module proxy is reachable (GOPROXY=${process.env.GOPROXY ?? "https://proxy.golang.org"})`,
    );
  } finally {
    clearInterval(ticker);
  }
  renameSync(tmp, out);
  log(`built ${what} in ${seconds(started)}`);
}

/** A Go program of a pinned release, built from a module of the Go module proxy. */
export interface GoTool {
  what: string;
  version: string;
  /** The package to build, in the module. */
  pkg: string;
  /** The module the build runs in: a wrapper module of tools/, or where it is downloaded to. */
  moduleDir: string | (() => Promise<string>);
  ldflags?: string;
  /**
   * The binary's path names the release (a folder keyed by it): it is current when it exists.
   * Otherwise a `<binary>.version` marker beside it says which release it is.
   */
  versionInPath?: boolean;
  /** Go's name of the operating system to build for (`windows`); this machine's when left out. */
  goos?: string;
}

/** `binary`, built from the tool's module when missing or of another release. */
export async function ensureCachedBuild(tool: GoTool, binary: string, log: Log): Promise<string> {
  const marker = tool.versionInPath ? undefined : `${binary}.version`;
  const current =
    existsSync(binary) &&
    (!marker || (existsSync(marker) && readFileSync(marker, "utf8").trim() === tool.version));
  if (current) {
    log(`using cached ${tool.what} v${tool.version} at ${binary}`);
    return binary;
  }
  const target = tool.goos ? ` for ${tool.goos}` : "";
  log(
    `building ${tool.what} v${tool.version}${target} from the Go module proxy; the first build takes a few minutes`,
  );
  const moduleDir = typeof tool.moduleDir === "string" ? tool.moduleDir : await tool.moduleDir();
  const what = `${tool.what} v${tool.version}${target}`;
  await goBuild(what, tool.pkg, moduleDir, tool.ldflags ?? "-s -w", binary, log, tool.goos);
  if (marker) writeFileSync(marker, `${tool.version}\n`);
  return binary;
}
