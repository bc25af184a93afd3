/**
 * A release of this checkout for the given platforms, without SDKs, built once per inputs and
 * cached outside the clone (`~/.cache/pulumi-cws/releases/<version>-<platforms>-<key>/`): what the
 * tests install from (linux-amd64 only: the suite builds what it runs) and what the start bench
 * measures. The key hashes everything the archives are made of: the bundle (every source file and
 * dependency it takes in, every file it carries), the Node version, the release scripts (the
 * versions of the tools they fetch among them) and postject. The bundle is made every time (a few
 * seconds); the executables and archives only when the key is new. Processes asking at once wait for the one that builds (a lock folder), and a
 * new build removes the older ones of the same platforms.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { packageVersion } from "../build.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { toolchainCache } from "../toolchain/go-build.ts";
import type { Log } from "../toolchain/log.ts";
import { bundleExecutable } from "./bundle.ts";
import { platformName, RELEASE_NODE_VERSION, type Platform } from "./platforms.ts";
import { buildRelease } from "./release.ts";

const RELEASE_SCRIPTS = join(REPO_ROOT, "scripts", "release");
/** How long a lock is taken as held before it is taken as left behind by a killed build. */
const STALE_LOCK_MS = 15 * 60_000;

function key(parts: (string | Buffer)[]): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(p).update("\0");
  return hash.digest("hex").slice(0, 16);
}

async function locked<T>(lock: string, log: Log, work: () => Promise<T>): Promise<T> {
  let said = false;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      if (!said) log(`waiting for the release another process is building (${lock})`);
      said = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The directory of the cached release for `platforms`, built first when its inputs changed. */
export async function cachedRelease(platforms: readonly Platform[], log: Log): Promise<string> {
  const bundle = await bundleExecutable();
  const scripts = readdirSync(RELEASE_SCRIPTS)
    .sort()
    .map((f) => readFileSync(join(RELEASE_SCRIPTS, f)));
  const postject = readFileSync(join(REPO_ROOT, "node_modules", "postject", "package.json"));
  const assets = Object.keys(bundle.assets)
    .sort()
    .flatMap((k) => [k, bundle.assets[k]!]);
  const names = platforms.map(platformName).join(",");
  const k = key([bundle.code, ...assets, RELEASE_NODE_VERSION, names, ...scripts, postject]);
  const root = join(toolchainCache(), "releases");
  const prefix = `${packageVersion()}-${names}-`;
  const dir = join(root, `${prefix}${k}`);
  if (existsSync(join(dir, ".complete"))) return dir;
  mkdirSync(root, { recursive: true });
  return locked(join(root, `${prefix}lock`), log, async () => {
    if (existsSync(join(dir, ".complete"))) return dir;
    const started = Date.now();
    log(`building the ${names} release (inputs changed; cached in ${dir})`);
    const temp = `${dir}.tmp`;
    await buildRelease({ out: temp, platforms, sdks: false, log, bundle });
    writeFileSync(join(temp, ".complete"), `${Math.round((Date.now() - started) / 1000)}s\n`);
    for (const old of readdirSync(root))
      if (old.startsWith(prefix) && join(root, old) !== temp && !old.endsWith("lock"))
        rmSync(join(root, old), { recursive: true, force: true });
    renameSync(temp, dir);
    return dir;
  });
}
