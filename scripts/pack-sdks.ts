/**
 * `npm run pack-sdks [-- --out DIR]`: every SDK in its language's own package format, in
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
import { publishJavaSdk } from "./toolchain/java.ts";
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

/** Go module proxy paths spell capitals as `!` + lower case. */
function escapeModulePath(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** The Python wheel of sdk/python, built by pip into `out`. Returns its path. */
export async function packPythonWheel(out: string, log: Log = defaultLog): Promise<string> {
  if (!existsSync(join(SDK_DIR, "python", "pyproject.toml")))
    throw new Error("sdk/python is not generated: run `npm run sdk:gen`");
  if (!existsSync(VENV_PYTHON)) throw new Error(`${VENV_PYTHON} is missing: run \`npm run languages:setup\``);
  mkdirSync(out, { recursive: true });
  await pip(["wheel", "--quiet", "--no-deps", "--wheel-dir", out, join(SDK_DIR, "python")]);
  const wheel = readdirSync(out).find((f) => /^pulumi_cws-.*\.whl$/.test(f));
  if (!wheel) throw new Error(`pip wrote no pulumi_cws wheel into ${out}`);
  log(`Python wheel ${wheel}`);
  return join(out, wheel);
}

/**
 * The Go SDK generated from schema.json under the module path GO_MODULE, as a Go module proxy
 * directory `out/go-proxy` (list, .info, .mod, .zip of v<version>). Returns the proxy directory.
 */
export async function packGoModule(out: string, log: Log = defaultLog): Promise<string> {
  const version = `v${schemaVersion()}`;
  const scratch = mkdtempSync(join(tmpdir(), "cws-go-module-"));
  try {
    // The schema as it is, with the Go import path of the published module.
    const schema = JSON.parse(readFileSync(SCHEMA, "utf8")) as {
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

/** The npm tarball, by `npm pack` (which rebuilds dist/). Returns its path in `out`. */
export async function packNpm(out: string, log: Log = defaultLog): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "cws-npm-pack-"));
  try {
    // With --json, stdout is the JSON alone (the build's output goes to stderr).
    const { stdout } = await runProcess("npm", ["pack", "--json", "--pack-destination", scratch]);
    const name = (JSON.parse(stdout) as { filename: string }[])[0]!.filename;
    mkdirSync(out, { recursive: true });
    renameSync(join(scratch, name), join(out, name));
    log(`npm package ${name}`);
    return join(out, name);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function packSdks(out: string = DEFAULT_OUT, log: Log = defaultLog): Promise<void> {
  await packNpm(out, log);
  await packPythonWheel(out, log);
  await packGoModule(out, log);
  await publishJavaSdk(join(out, "maven"), log);
  log(`packages in ${out}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--out");
  const out = i > 0 ? process.argv[i + 1] : DEFAULT_OUT;
  try {
    if (!out) throw new Error("--out needs a directory");
    await packSdks(out);
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    process.exit(1);
  }
}
