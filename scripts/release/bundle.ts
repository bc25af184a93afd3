/**
 * The release executable's script and files (cli/executable.ts, cli/executable-files.ts):
 * - the main script: cli/executable.ts bundled alone into one small CommonJS script, what a Node
 *   single executable application runs (sea.ts);
 * - its files: the code of each role (`code/<role>.cjs`: the native plugin, the OpenTofu provider,
 *   the `cws` command), bundled with everything they load, dependencies included, as CommonJS
 *   with what each loads later by `import()` in chunks of its own (`code/chunk-<name>-<hash>.cjs`),
 *   as the npm package's plugin bundles are split (scripts/build.ts); and the files that code
 *   reads at run time (scripts/build.ts's rule, the OpenTofu protocol precompiled as the build
 *   does it).
 *
 * Bundled from the TypeScript sources (rolldown strips the types), not from dist/: no tsc run.
 * Each source module's `import.meta.url` becomes `fileUrl("<its path>")`, a URL in the folder the
 * executable writes its files to, so every relative read of the sources (`new
 * URL("../../schema.json", import.meta.url)`) finds the file there.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { rolldown, type RolldownPluginOption } from "rolldown";
import { assetKey, FILES_ASSET, ROLE_ENTRIES, type FilesIndex } from "../../cli/executable-files.ts";
import { distPackageJson, openTofuProtocolFiles, runtimeFiles } from "../build.ts";
import { REPO_ROOT } from "../repo-root.ts";

const FILES_MODULE = `${REPO_ROOT}/cli/executable-files.ts`;
/** The source each role's code starts from. */
const ROLE_SOURCES: Record<keyof typeof ROLE_ENTRIES, string> = {
  "pulumi-plugin": "provider/native/main.ts",
  "tofu-provider": "provider/opentofu/main.ts",
  cws: "cli/cws.ts",
};

export interface ExecutableBundle {
  /** The main script (CommonJS). */
  code: string;
  /** The assets by key: FILES_ASSET, and each file as `file:<path>`. */
  assets: Record<string, Buffer>;
}

/** Source modules of this package (not its dependencies), as paths from the root. */
function sourcePath(id: string): string | undefined {
  const rel = relative(REPO_ROOT, id);
  if (rel.startsWith("..") || rel.split(sep).includes("node_modules")) return undefined;
  return rel.split(sep).join("/");
}

/** Each source module's `import.meta.url` as `fileUrl("<its path>")`. */
const executableFiles: RolldownPluginOption = {
  name: "executable-files",
  transform(code, id) {
    const path = sourcePath(id);
    if (!path || id === FILES_MODULE || !code.includes("import.meta.url")) return null;
    const url = `__cwsFileUrl(${JSON.stringify(path)})`;
    return {
      code: `import { fileUrl as __cwsFileUrl } from ${JSON.stringify(FILES_MODULE)};\n${code.replaceAll("import.meta.url", url)}`,
      map: null,
    };
  },
};

/** The code of the roles: `code/<role>.cjs` and their chunks, by path. */
async function roleCode(): Promise<Record<string, Buffer>> {
  const input = Object.fromEntries(
    Object.entries(ROLE_ENTRIES).map(([role, file]) => [
      file.replace(/^code\//, "").replace(/\.cjs$/, ""),
      `${REPO_ROOT}/${ROLE_SOURCES[role as keyof typeof ROLE_ENTRIES]}`,
    ]),
  );
  const build = await rolldown({
    input,
    platform: "node",
    // Never loaded inside the executable: the .proto compiler (the protocol is precompiled) and
    // gRPC's loader of it.
    external: [/^node:/, "@grpc/proto-loader", /\/protocol-source\.ts$/],
    logLevel: "warn",
    plugins: [executableFiles],
  });
  const { output } = await build.generate({
    format: "cjs",
    entryFileNames: "[name].cjs",
    chunkFileNames: "chunk-[name]-[hash].cjs",
  });
  await build.close();
  const files: Record<string, Buffer> = {};
  for (const chunk of output)
    if (chunk.type === "chunk") files[`code/${chunk.fileName}`] = Buffer.from(chunk.code);
  return files;
}

/** The main script: cli/executable.ts alone. */
async function mainScript(): Promise<string> {
  const build = await rolldown({
    input: `${REPO_ROOT}/cli/executable.ts`,
    platform: "node",
    external: [/^node:/],
    logLevel: "warn",
  });
  const { output } = await build.generate({ format: "cjs", codeSplitting: false });
  await build.close();
  return output[0].code;
}

/**
 * The bundle. `schema`: the text of the schema.json it serves (the package's when left out; the
 * release passes one with `pluginDownloadURL` when it is given one).
 */
export async function bundleExecutable(schema?: string): Promise<ExecutableBundle> {
  const code = await mainScript();
  const files: Record<string, Buffer> = { "package.json": Buffer.from(distPackageJson()) };
  for (const path of runtimeFiles()) files[path] = readFileSync(`${REPO_ROOT}/${path}`);
  Object.assign(files, openTofuProtocolFiles(), await roleCode());
  if (schema !== undefined) files["schema.json"] = Buffer.from(schema);

  const paths = Object.keys(files).sort();
  const hash = createHash("sha256").update(code);
  for (const p of paths) hash.update(`\0${p}\0`).update(files[p]!);
  const index: FilesIndex = { build: hash.digest("hex").slice(0, 16), files: paths };
  const assets: Record<string, Buffer> = { [FILES_ASSET]: Buffer.from(JSON.stringify(index)) };
  for (const p of paths) assets[assetKey(p)] = files[p]!;
  return { code, assets };
}
