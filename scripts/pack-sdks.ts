/**
 * `npm run pack-sdks [-- --out DIR] [--plugin-download-url URL]`: every SDK in its language's own package format, in
 * dist/packages/ (or DIR):
 *
 * - `pulumi-cws-<version>.tgz`: the npm package (`npm pack`: the TypeScript SDKs, the plugin);
 * - `pulumi_cws-<version>-py3-none-any.whl`: the Python SDK (`pip install <wheel>`);
 * - `go-proxy/`: the Go SDK as module GO_MODULE at v<version>, laid out as a Go module proxy
 *   (`GOPROXY=file://<dir>/go-proxy,...`; in a repository it is the `sdk/go` folder tagged
 *   `sdk/go/v<version>`);
 * - `maven/`: the Java SDK jar `com.pulumi:cws:<version>` in a Maven repository directory
 *   (a pom.xml names it as `<repository><url>file://<dir>/maven</url>`).
 *
 * The npm tarball goes first: `npm pack` rebuilds dist/, which removes what was in it.
 *
 * `--plugin-download-url URL`: where the engine downloads the plugin from (the release's
 * `pulumi-resource-cws-v<version>-<os>-<arch>.tar.gz`: docs/releasing.md). It goes into the schema
 * the SDKs are generated from (`pluginDownloadURL`) and so into each SDK's plugin metadata: the
 * npm package.json's `pulumi` field, the wheel's and the Go module's `pulumi-plugin.json`, the
 * jar's `plugin.json` (`server`), and the SDKs' default resource options. A program in any
 * language then gets the plugin on its first `pulumi up` or `pulumi install`. Without it (the
 * default, and the committed schema.json) no SDK names a download location.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "./repo-root.ts";
import { run, runProcess } from "./run.ts";
import { generateJavaSdk, publishJavaSdk } from "./toolchain/java.ts";
import { ensureGenSdk, pip, SCHEMA, schemaVersion, SDK_DIR, VENV_PYTHON } from "./toolchain/languages.ts";
import { logTo, type Log } from "./toolchain/log.ts";

/**
 * The module path of the published Go SDK. In the checkout, Go programs use the generated
 * sdk/go under the local path `pulumi-cws/sdk/go` with a `replace`; a module fetched through
 * a proxy needs a path with a host name.
 */
export const GO_MODULE = "github.com/pulumi-cws/pulumi-cws/sdk/go";
export const DEFAULT_OUT = join(REPO_ROOT, "dist", "packages");

const defaultLog = logTo("pack-sdks");

/** How the SDKs are packed. */
export interface PackOptions {
  /** The plugin's download location written into the schema and every SDK; none when left out. */
  pluginDownloadUrl?: string;
}

/**
 * The text of schema.json with `pluginDownloadURL` (after `version`) when `url` is given, else
 * the committed file as it is.
 */
export function schemaText(url?: string): string {
  const text = readFileSync(SCHEMA, "utf8");
  if (!url) return text;
  const schema = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] = v;
    if (k === "version") out.pluginDownloadURL = url;
  }
  out.pluginDownloadURL = url;
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Go module proxy paths spell capitals as `!` + lower case. */
function escapeModulePath(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/**
 * The Python wheel, built by pip into `out`: of sdk/python, or, with a download URL, of the
 * Python SDK generated afresh from the schema with that URL. Returns its path.
 */
export async function packPythonWheel(
  out: string,
  log: Log = defaultLog,
  options: PackOptions = {},
): Promise<string> {
  if (!existsSync(VENV_PYTHON)) throw new Error(`${VENV_PYTHON} is missing: run \`npm run languages:setup\``);
  const scratch = mkdtempSync(join(tmpdir(), "cws-python-sdk-"));
  try {
    let sdk = join(SDK_DIR, "python");
    if (options.pluginDownloadUrl) {
      const schemaPath = join(scratch, "schema.json");
      writeFileSync(schemaPath, schemaText(options.pluginDownloadUrl));
      await run(await ensureGenSdk(log), [
        "-schema",
        schemaPath,
        "-out",
        join(scratch, "sdk"),
        "-lang",
        "python",
      ]);
      sdk = join(scratch, "sdk", "python");
    } else if (!existsSync(join(sdk, "pyproject.toml")))
      throw new Error("sdk/python is not generated: run `npm run sdk:gen`");
    mkdirSync(out, { recursive: true });
    await pip(["wheel", "--quiet", "--no-deps", "--wheel-dir", out, sdk]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const wheel = readdirSync(out).find((f) => /^pulumi_cws-.*\.whl$/.test(f));
  if (!wheel) throw new Error(`pip wrote no pulumi_cws wheel into ${out}`);
  log(`Python wheel ${wheel}`);
  return join(out, wheel);
}

/**
 * The Go SDK generated from schema.json under the module path GO_MODULE, as a Go module proxy
 * directory `out/go-proxy` (list, .info, .mod, .zip of v<version>). Returns the proxy directory.
 */
export async function packGoModule(
  out: string,
  log: Log = defaultLog,
  options: PackOptions = {},
): Promise<string> {
  const version = `v${schemaVersion()}`;
  const scratch = mkdtempSync(join(tmpdir(), "cws-go-module-"));
  try {
    // The schema as it is (with the download URL, if any), with the Go import path of the published module.
    const schema = JSON.parse(schemaText(options.pluginDownloadUrl)) as {
      name: string;
      language?: Record<string, object>;
    };
    schema.language = {
      ...schema.language,
      go: { ...schema.language?.go, importBasePath: `${GO_MODULE}/${schema.name}` },
    };
    const schemaPath = join(scratch, "schema.json");
    writeFileSync(schemaPath, JSON.stringify(schema));
    const genSdk = await ensureGenSdk(log);
    await run(genSdk, ["-schema", schemaPath, "-out", join(scratch, "sdk"), "-lang", "go"]);
    const moduleDir = join(scratch, "sdk", "go");
    const gomod = readFileSync(join(moduleDir, "go.mod"), "utf8");
    if (!gomod.startsWith(`module ${GO_MODULE}\n`))
      throw new Error(`the generated go.mod is not module ${GO_MODULE}`);

    const proxy = join(out, "go-proxy");
    const dir = join(proxy, escapeModulePath(GO_MODULE), "@v");
    rmSync(join(proxy, escapeModulePath(GO_MODULE)), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "list"), `${version}\n`);
    writeFileSync(
      join(dir, `${version}.info`),
      `${JSON.stringify({ Version: version, Time: new Date().toISOString() })}\n`,
    );
    writeFileSync(join(dir, `${version}.mod`), gomod);
    // A module zip: every file under `<module>@<version>/`.
    const staged = join(scratch, "zip");
    cpSync(moduleDir, join(staged, `${GO_MODULE}@${version}`), { recursive: true });
    await run("python3", [
      "-c",
      `import os, sys, zipfile
root, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
    for base, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            path = os.path.join(base, f)
            z.write(path, os.path.relpath(path, root))`,
      staged,
      join(dir, `${version}.zip`),
    ]);
    log(`Go module ${GO_MODULE}@${version} in ${proxy}`);
    return proxy;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The npm tarball, by `npm pack` (which rebuilds dist/). With a download URL, its package.json
 * gets the `pulumi` field by which Pulumi's Node.js host learns the plugin and where to get it
 * (the tarball unpacked, the field added, packed again). Returns its path in `out`.
 */
export async function packNpm(
  out: string,
  log: Log = defaultLog,
  options: PackOptions = {},
): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "cws-npm-pack-"));
  try {
    // With --json, stdout is the JSON alone (the build's output goes to stderr).
    const { stdout } = await runProcess("npm", ["pack", "--json", "--pack-destination", scratch]);
    const name = (JSON.parse(stdout) as { filename: string }[])[0]!.filename;
    if (options.pluginDownloadUrl) {
      await run("tar", ["-xzf", join(scratch, name), "-C", scratch]);
      rmSync(join(scratch, name));
      const manifest = join(scratch, "package", "package.json");
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
      const pulumi = { resource: true, name: "cws", version: pkg.version, server: options.pluginDownloadUrl };
      writeFileSync(manifest, `${JSON.stringify({ ...pkg, pulumi }, null, 2)}\n`);
      await runProcess("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", scratch], {
        cwd: join(scratch, "package"),
      });
    }
    mkdirSync(out, { recursive: true });
    renameSync(join(scratch, name), join(out, name));
    log(`npm package ${name}`);
    return join(out, name);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The Java jar in a Maven repository directory `repo`: of sdk/java, or, with a download URL, of
 * the Java SDK generated afresh from the schema with that URL.
 */
export async function packJava(
  repo: string,
  log: Log = defaultLog,
  options: PackOptions = {},
): Promise<string> {
  if (!options.pluginDownloadUrl) return publishJavaSdk(repo, log);
  const scratch = mkdtempSync(join(tmpdir(), "cws-java-sdk-"));
  try {
    const schemaPath = join(scratch, "schema.json");
    writeFileSync(schemaPath, schemaText(options.pluginDownloadUrl));
    const sdk = join(scratch, "java");
    await generateJavaSdk(log, {
      schema: schemaPath,
      dir: sdk,
      pluginDownloadUrl: options.pluginDownloadUrl,
    });
    return await publishJavaSdk(repo, log, sdk);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function packSdks(
  out: string = DEFAULT_OUT,
  log: Log = defaultLog,
  options: PackOptions = {},
): Promise<void> {
  await packNpm(out, log, options);
  await packPythonWheel(out, log, options);
  await packGoModule(out, log, options);
  await packJava(join(out, "maven"), log, options);
  log(
    `packages in ${out}${options.pluginDownloadUrl ? ` (plugin download URL ${options.pluginDownloadUrl})` : ""}`,
  );
}

/** The value of `--name VALUE` in `argv`; an error when the flag has no value. */
export function flagValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value`);
  return value;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const argv = process.argv.slice(2);
    const out = flagValue(argv, "out") ?? DEFAULT_OUT;
    await packSdks(out, defaultLog, { pluginDownloadUrl: flagValue(argv, "plugin-download-url") });
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    process.exit(1);
  }
}
