/**
 * The release executable's files, which it carries inside itself (a Node single executable
 * application's assets: scripts/release/): the code of its roles (`code/`: the bundles of
 * scripts/release/bundle.ts) and the files that code reads at run time (the package's version,
 * schema.json, the OpenTofu protocol's descriptor and answers, the dashboard, the sandbox agent).
 * The code reads those as the package's code does, relative to its own module (`new
 * URL("./vendor/protocol.json", import.meta.url)`): the bundle turns each module's
 * `import.meta.url` into `fileUrl(<its source path>)`, a file URL under the one folder that holds
 * the files.
 *
 * That folder is written once per release build, on its first start, into the user's cache
 * (`$XDG_CACHE_HOME/pulumi-cws/executable-files/<build>`, else `~/.cache/...`; on Windows under
 * `%LOCALAPPDATA%`: compile-cache.ts's userCacheDir; the system's temporary folder
 * when the cache cannot be written): into a temporary name, then renamed, so that processes
 * started at once (OpenTofu starts several) each see it whole or not at all. Later starts only
 * look for it. It holds the executable's own files only, keyed by their hash.
 */
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { userCacheDir, writableDir } from "../provider/frontend/compile-cache.ts";

/** What the executable is (cli/executable.ts): either plugin, the Node of the sandbox agent, or `cws`. */
export type Role = "pulumi-plugin" | "tofu-provider" | "node" | "cws";

/** The file of each role's code among the executable's files (scripts/release/bundle.ts writes them). */
export const ROLE_ENTRIES: Record<Exclude<Role, "node">, string> = {
  "pulumi-plugin": "code/pulumi-resource-cws.cjs",
  "tofu-provider": "code/terraform-provider-cws.cjs",
  cws: "code/cws.cjs",
};

/** The asset naming the files (`files.json`): the build's hash and each file's asset key and path. */
export const FILES_ASSET = "files.json";

export interface FilesIndex {
  /** A hash of every file: the name of the folder they are written to. */
  build: string;
  /** Each file's path under the folder, `/`-separated; its asset key is `file:<path>`. */
  files: string[];
}

export const assetKey = (path: string) => `file:${path}`;

type Sea = {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
  getAsset(key: string, encoding: string): string;
};

let root: string | undefined;

/**
 * The folders the files may go to, in order: the user's cache, then the temporary folder. The
 * temporary folder is shared with every user of the machine: its `pulumi-cws-<user>` folder is
 * used only when it is this user's own and no one else may write into it (`shared`), so that no
 * other user can put code there for the executable to load.
 */
function candidates(build: string): { dir: string; shared: boolean }[] {
  const cache = userCacheDir();
  let user = "user";
  try {
    user = userInfo().username;
  } catch {
    // No name for this uid: one folder for all such users (each checked to be its owner's).
  }
  return [
    { dir: join(cache, "pulumi-cws", "executable-files", build), shared: false },
    { dir: join(tmpdir(), `pulumi-cws-${user}`, "executable-files", build), shared: true },
  ];
}

/** Whether `dir` (made when missing) is a folder of this user that no one else may write to. */
function ownFolder(dir: string): boolean {
  if (process.platform === "win32") return true; // the temporary folder is the user's own there
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // There already, or cannot be made: the checks below say which.
  }
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Writes every file under `dir` (through a temporary folder renamed into place). */
function extract(sea: Sea, index: FilesIndex, dir: string): void {
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  for (const path of index.files) {
    const target = join(temp, ...path.split("/"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, Buffer.from(sea.getAsset(assetKey(path))));
  }
  writeFileSync(join(temp, ".complete"), `${index.build}\n`);
  try {
    renameSync(temp, dir);
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    // Another process put it in place first: theirs is the same.
    if (!existsSync(join(dir, ".complete"))) throw e;
  }
}

/** The folder holding the files, written first when it is not there yet. */
export function filesRoot(): string {
  if (root !== undefined) return root;
  // A built-in module, loaded only inside the executable (node:sea exists from Node 20).
  const sea = process.getBuiltinModule("node:sea") as Sea;
  const index = JSON.parse(sea.getAsset(FILES_ASSET, "utf8")) as FilesIndex;
  const errors: string[] = [];
  for (const { dir, shared } of candidates(index.build)) {
    if (shared && !ownFolder(join(dir, "..", ".."))) {
      errors.push(`${join(dir, "..", "..")}: not a folder of this user's own`);
      continue;
    }
    if (existsSync(join(dir, ".complete"))) return (root = dir);
    if (!writableDir(dirname(dir))) {
      errors.push(`${dirname(dir)}: not a folder it may write to`);
      continue;
    }
    try {
      extract(sea, index, dir);
      return (root = dir);
    } catch (e) {
      errors.push(`${dir}: ${(e as Error).message}`);
    }
  }
  throw new Error(`cannot write the executable's files anywhere (${errors.join("; ")})`);
}

/** The file URL of `path` (a source path, such as `provider/native/main.ts`) among the files. */
export function fileUrl(path: string): string {
  return pathToFileURL(join(filesRoot(), ...path.split("/"))).href;
}
