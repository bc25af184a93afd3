/**
 * `npm run build [-- --force]` (also run by setup and by `prepack`): the package as users install
 * it. It does nothing when dist/ was built from the sources as they are (dist/.inputs:
 * scripts/build-inputs.ts), unless --force.
 *
 * tsc compiles every source folder listed in tsconfig.build.json into dist/ (JavaScript and
 * declarations, relative `.ts` imports rewritten to `.js`), then this script:
 * - rewrites relative `.ts` specifiers in the declarations too (tsc keeps them as written),
 *   so any TypeScript version and module resolution a user has reads them, and gives each
 *   declaration file its source's opening doc comment where tsc dropped it;
 * - copies the files the code reads at run time beside its own files (for example the sandbox
 *   agent and PTY helper), i.e. every file of a source folder that tsc does not compile and that
 *   is not documentation;
 * - copies the root files that code reads relative to the package root (ROOT_FILES);
 * - writes dist/package.json: the version the client and the server report, and `"type":
 *   "module"` for the compiled files (the package root's package.json is one level further up);
 * - bundles what the dynamic provider runs in the engine's provider process (its adapter and the
 *   client, with zod, undici and ws) into dist/dynamic/, laid out like the sources so that their
 *   relative paths hold. That process starts afresh for every operation; a few files load in
 *   about half the time of the few hundred they are made of. provider/dynamic.ts loads
 *   them when present; the rest of the package (and every checkout run from sources) uses
 *   dist/ as compiled;
 * - compiles the OpenTofu provider's vendored .proto files into its codec's descriptor
 *   (dist/provider/opentofu/vendor/protocol.json), so that the provider parses nothing at start,
 *   and encodes the answers that depend on the package alone (its schema:
 *   vendor/answers/<RPC>.pb), so that the process OpenTofu starts to read the schema does not load
 *   the resource modules;
 * - bundles each plugin's entry (provider/<front end>/start.ts: Node's compile cache, then the
 *   plugin) with everything it loads, its dependencies included, into a few files beside its
 *   compiled sources (PLUGINS), which the bin/ launchers run when installed: what the start runs,
 *   and what its calls load later (by `import()`) in files of their own. OpenTofu starts its
 *   provider several times per command and the engine its plugin for every command: a few files,
 *   their code cached compiled after the first start, start in a fraction of the time.
 *
 * The release's executables (scripts/release/bundle.ts) take the same run-time files
 * (runtimeFiles, openTofuProtocolFiles, distPackageJson) from here, so both ship the same.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build as bundle } from "rolldown";
import { TofuProvider } from "../provider/opentofu/adapter.ts";
import { servicesOf } from "../provider/opentofu/protocol.ts";
import { protocolDescriptor } from "../provider/opentofu/protocol-source.ts";
import { encodeStaticAnswers } from "../provider/opentofu/static-answers.ts";
import type { PackageSchema } from "../provider/opentofu/tf-schema.ts";
import { servedSchema } from "../provider/schema/package-schema.ts";
import { buildInputsKey, INPUTS_STAMP } from "./build-inputs.ts";
import { REPO_ROOT } from "./repo-root.ts";

const DIST = join(REPO_ROOT, "dist");
const TSCONFIG = join(REPO_ROOT, "tsconfig.build.json");
/** Relative specifiers ending in .ts / .mts / .cts, in `from "..."`, `import("...")` and `require("...")`. */
const TS_SPECIFIER = /((?:from|import\(|require\()\s*["'])(\.{1,2}\/[^"']+?)\.([mc]?)ts(["'])/g;
/**
 * Files at the package root that the code reads relative to the root (`../../schema.json` from
 * provider/native/): compiled, that code sits in dist/, so they are copied there too (when present).
 */
const ROOT_FILES = ["schema.json"];
/** Files of a source folder that are neither compiled nor shipped. */
const NOT_SHIPPED = new Set([".ts", ".md"]);
/**
 * SDKs of the other languages generated into sdk/ by setup (and their builds): each ships in its
 * own package format (`npm run pack-sdks`), never inside the npm package.
 */
const OTHER_LANGUAGE_SDKS = ["python", "go", "java", "maven"].map((d) => join(REPO_ROOT, "sdk", d) + sep);

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

function compile(): void {
  const tsc = createRequire(join(REPO_ROOT, "package.json")).resolve("typescript/bin/tsc");
  // Progress and errors on stderr: stdout stays clean for `npm pack --json`, which runs this.
  const r = spawnSync(process.execPath, [tsc, "-p", TSCONFIG], { cwd: REPO_ROOT, stdio: ["ignore", 2, 2] });
  if (r.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (exit ${r.status ?? r.signal})`);
}

function rewriteDeclarations(text: string): string {
  return text.replace(TS_SPECIFIER, (_m, head: string, path: string, kind: string, quote: string) => {
    return `${head}${path}.${kind}js${quote}`;
  });
}

/** A source file's opening doc comment. */
const OPENING_COMMENT = /^\/\*\*[\s\S]*?\*\/\n/;

/**
 * The declarations of `source` with its opening doc comment. tsc hangs that comment on the first
 * statement and drops it with the statement when the declarations leave that out (an import only
 * the code uses); it keeps it when a blank line follows it, as it then stands here.
 */
function withOpeningComment(declarations: string, source: string): string {
  const comment = OPENING_COMMENT.exec(source)?.[0];
  return comment && !declarations.startsWith(comment) ? `${comment}\n${declarations}` : declarations;
}

/** Entries of dist/dynamic/, by output name: the same path as in the sources. */
const DYNAMIC_ENTRIES = ["provider/dynamic/adapter", "client/client"];

async function bundleDynamicProvider(): Promise<void> {
  const input = Object.fromEntries(DYNAMIC_ENTRIES.map((e) => [e, join(DIST, `${e}.js`)]));
  await bundle({
    input,
    platform: "node",
    external: [/^node:/],
    logLevel: "warn",
    output: { dir: join(DIST, "dynamic"), format: "esm", chunkFileNames: "[name]-[hash].js" },
  });
}

/**
 * The plugins' bundles, each in the folder of its compiled sources, so that what the code reads
 * relative to itself (the package root's files two folders up, vendor/) is where it was:
 * `<name>.js`, the entry (start.ts: Node's compile cache on), and `<name>-main.js`, which it then
 * imports: main.ts and what it loads before the handshake line, dependencies included. What a
 * call loads later with `import()` (the adapter and the resource modules, the protocol's message
 * classes, the HTTP client, the engine log's gRPC client) is in chunks beside it,
 * `<name>-main-<chunk>-<hash>.js`, which the start neither reads nor compiles: in one file with
 * the rest, Node read and V8 took in (compiled, or read from the cache) all of it at every start,
 * about a quarter of the native plugin's CPU to its handshake line. The main file is a file of its own
 * because a file's code is compiled as it loads, before it can turn the cache on.
 */
const PLUGINS = [
  { entry: "provider/opentofu/start", main: "provider/opentofu/main", name: "terraform-provider-cws" },
  { entry: "provider/native/start", main: "provider/native/main", name: "pulumi-resource-cws" },
];

async function bundlePlugins(): Promise<void> {
  for (const { entry, main, name } of PLUGINS) {
    const dir = join(DIST, dirname(entry));
    const mainFile = join(DIST, `${main}.js`);
    await bundle({
      input: { [`${name}-main`]: mainFile },
      platform: "node",
      // Never loaded by the plugins as installed: gRPC channelz's loader, and the .proto compiler (the
      // build compiled them).
      external: [/^node:/, "@grpc/proto-loader", /\/protocol-source\.js$/],
      logLevel: "warn",
      output: { dir, format: "esm", chunkFileNames: `${name}-main-[name]-[hash].js` },
    });
    await bundle({
      input: { [name]: join(DIST, `${entry}.js`) },
      platform: "node",
      external: [/^node:/],
      logLevel: "warn",
      plugins: [
        {
          name: "plugin-main",
          resolveId: (source, importer) =>
            importer && join(dirname(importer), source) === mainFile
              ? { id: `./${name}-main.js`, external: true }
              : null,
        },
      ],
      output: { dir, format: "esm" },
    });
  }
}

/**
 * The OpenTofu provider's precompiled protocol, by path from the package root: the codec's
 * descriptor of its vendored .proto files (provider/opentofu/vendor/protocol.json), and the encoded
 * answers of the calls that depend on the package alone (vendor/answers/<RPC>.pb,
 * provider/opentofu/static-answers.ts).
 */
export function openTofuProtocolFiles(): Record<string, Buffer> {
  const vendor = "provider/opentofu/vendor";
  const descriptor = protocolDescriptor();
  const files: Record<string, Buffer> = {
    [`${vendor}/protocol.json`]: Buffer.from(JSON.stringify(descriptor)),
  };
  const schema = JSON.parse(servedSchema(pathToFileURL(`${REPO_ROOT}/`), packageVersion())) as PackageSchema;
  const answers = encodeStaticAnswers(new TofuProvider(schema, () => {}), servicesOf(descriptor));
  for (const [rpc, bytes] of Object.entries(answers))
    files[`${vendor}/answers/${rpc}.pb`] = Buffer.from(bytes);
  return files;
}

/** The OpenTofu provider's precompiled protocol (openTofuProtocolFiles) in dist/. */
function writeOpenTofuProtocol(): void {
  for (const [path, bytes] of Object.entries(openTofuProtocolFiles())) {
    mkdirSync(dirname(join(DIST, path)), { recursive: true });
    writeFileSync(join(DIST, path), bytes);
  }
}

/** The package's version (package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * The files the compiled code reads at run time, as paths from the package root: every file of
 * the source folders (tsconfig.build.json) that tsc does not compile and that is not
 * documentation, other languages' SDKs left out, and the root files (ROOT_FILES) present.
 */
export function runtimeFiles(): string[] {
  const config = JSON.parse(readFileSync(TSCONFIG, "utf8")) as { include: string[] };
  const out: string[] = [];
  for (const folder of config.include) {
    for (const file of files(join(REPO_ROOT, folder))) {
      if (NOT_SHIPPED.has(extname(file)) || OTHER_LANGUAGE_SDKS.some((d) => file.startsWith(d))) continue;
      out.push(relative(REPO_ROOT, file).split(sep).join("/"));
    }
  }
  for (const file of ROOT_FILES) if (existsSync(join(REPO_ROOT, file))) out.push(file);
  return out;
}

/** dist/package.json: the version the client and the server report, and ESM for the compiled files. */
export function distPackageJson(): string {
  return JSON.stringify({ version: packageVersion(), type: "module" }, null, 2) + "\n";
}

async function build(force: boolean): Promise<void> {
  // Taken before the build: a source changed while it runs leaves dist/ marked as older.
  const inputs = buildInputsKey();
  // dist/ as it is serves: nothing removed under the processes running from it (the tests' plugins
  // while a test packs the package).
  if (!force && existsSync(INPUTS_STAMP) && readFileSync(INPUTS_STAMP, "utf8").trim() === inputs) {
    console.error("build: dist/ is built from these sources already (dist/.inputs); --force builds it again");
    return;
  }
  rmSync(DIST, { recursive: true, force: true });
  compile();

  let declarations = 0;
  for (const file of files(DIST)) {
    if (!/\.d\.[mc]?ts$/.test(file)) continue;
    const text = readFileSync(file, "utf8");
    const source = join(REPO_ROOT, relative(DIST, file)).replace(/\.d\.([mc]?)ts$/, ".$1ts");
    const out = rewriteDeclarations(
      existsSync(source) ? withOpeningComment(text, readFileSync(source, "utf8")) : text,
    );
    if (out !== text) writeFileSync(file, out);
    declarations++;
  }

  let assets = 0;
  for (const file of runtimeFiles()) {
    const target = join(DIST, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), target);
    assets++;
  }

  writeFileSync(join(DIST, "package.json"), distPackageJson());
  await bundleDynamicProvider();
  writeOpenTofuProtocol();
  await bundlePlugins();
  writeFileSync(INPUTS_STAMP, `${inputs}\n`);
  console.error(
    `build: dist/ (${declarations} declaration files, ${assets} run-time files copied; dynamic provider bundled in dist/dynamic/, plugins bundled: ${PLUGINS.map((p) => `dist/${dirname(p.entry)}/${p.name}.js`).join(", ")})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await build(process.argv.includes("--force"));
