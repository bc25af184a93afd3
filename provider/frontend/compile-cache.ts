/**
 * Node's compile cache for the plugins' processes, which OpenTofu and the Pulumi engine start
 * afresh several times per command: the V8 code of the plugin's modules is kept on disk after
 * the first start, so later starts skip most of parsing and compiling. It lives in the user's
 * cache (`$XDG_CACHE_HOME/pulumi-cws/compile-cache`, else `~/.cache/pulumi-cws/compile-cache`; on
 * Windows `%LOCALAPPDATA%\pulumi-cws\compile-cache`; `NODE_COMPILE_CACHE` names another folder) and holds compiled code only, never anything read
 * from the service. A cache that cannot be made or written only costs the speed-up: nothing here
 * ever fails a start.
 */
import { accessSync, constants as fsConstants, mkdirSync, statSync } from "node:fs";
import * as nodeModule from "node:module";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

const api = nodeModule as Partial<{
  enableCompileCache(dir?: string): { status: number; message?: string; directory?: string };
  flushCompileCache(): void;
}>;

/**
 * The user's cache folder: `%LOCALAPPDATA%` on Windows (else `<home>\AppData\Local`), elsewhere
 * `$XDG_CACHE_HOME`, else `~/.cache`. The compile cache and the release executable's files
 * (cli/executable-files.ts) live in its `pulumi-cws` folder.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  return platform === "win32"
    ? env.LOCALAPPDATA || join(homedir(), "AppData", "Local")
    : env.XDG_CACHE_HOME || join(homedir(), ".cache");
}

/** The folder of the cache: NODE_COMPILE_CACHE, else under the user's cache. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  return join(userCacheDir(env, platform), "pulumi-cws", "compile-cache");
}

/**
 * Makes `dir` and its missing parents one at a time, and says whether it is a folder this process
 * may write to. Node's own recursive mkdir (which enableCompileCache uses) never returns when a
 * parent exists but cannot hold folders (a dangling symlink, a path under /proc): its walk goes
 * back and forth forever. Here any refusal is an answer.
 */
export function writableDir(dir: string): boolean {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if (!statSync(d).isDirectory()) return false;
      break;
    } catch {
      if (dirname(d) === d) return false;
      missing.unshift(d);
    }
  }
  try {
    for (const d of missing) {
      try {
        mkdirSync(d);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(d).isDirectory()) return false;
      }
    }
    accessSync(dir, fsConstants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Turns the cache on for the modules loaded from now on (call it before importing the plugin).
 * Returns the folder in use, or undefined when the cache is off (no such API, or the folder is not
 * writable: Node then compiles as usual).
 */
export function enableCompileCache(): string | undefined {
  try {
    const dir = compileCacheDir();
    if (!api.enableCompileCache || !writableDir(dir)) return undefined;
    const r = api.enableCompileCache(dir);
    const { constants } = nodeModule as { constants?: { compileCacheStatus?: Record<string, number> } };
    const status = constants?.compileCacheStatus;
    if (!r || !status || (r.status !== status.ENABLED && r.status !== status.ALREADY_ENABLED))
      return undefined;
    return r.directory;
  } catch {
    return undefined;
  }
}

/**
 * Writes what was compiled so far to the cache now. The plugins call it once they are serving:
 * their clients end them with a signal or a Shutdown call, and a signal skips Node's exit hooks.
 */
export function flushCompileCache(): void {
  try {
    api.flushCompileCache?.();
  } catch {
    // Only the speed-up is lost.
  }
}

/**
 * `load` (an `import()` of what a plugin loads after its start: in the built package, chunks of
 * their own), then what it loaded written to the cache, so that the next start's calls read it
 * compiled: the plugins' clients end them with a signal or a Shutdown call, which skip Node's exit
 * hooks, and code already cached is not written again.
 */
export async function cachedImport<T>(load: Promise<T>): Promise<T> {
  const loaded = await load;
  flushCompileCache();
  return loaded;
}
