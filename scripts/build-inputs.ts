/**
 * What dist/ is built from, as one key: every file of the source folders tsconfig.build.json
 * compiles (and the run-time files among them), the build script, package.json and the lock file.
 * `npm run build` writes it to dist/.inputs when it is done (scripts/build.ts); the tests build
 * again only when the key of the checkout differs (test/global-setup.ts), so the plugins they
 * start from dist/ are never older than the sources.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./repo-root.ts";

export const INPUTS_STAMP = join(REPO_ROOT, "dist", ".inputs");

const ROOT_FILES = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts/build.ts",
];

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

/** The key of the checkout's build inputs (paths and contents). */
export function buildInputsKey(): string {
  const { include } = JSON.parse(readFileSync(join(REPO_ROOT, "tsconfig.build.json"), "utf8")) as {
    include: string[];
  };
  const files = [
    ...ROOT_FILES.map((f) => join(REPO_ROOT, f)).filter((f) => existsSync(f)),
    ...include.flatMap((dir) => [...filesUnder(join(REPO_ROOT, dir))]),
  ].sort();
  const hash = createHash("sha256");
  for (const file of files)
    hash.update(relative(REPO_ROOT, file)).update("\0").update(readFileSync(file)).update("\0");
  return hash.digest("hex");
}

/** Whether dist/ was built from the checkout as it is now. */
export function distIsCurrent(): boolean {
  return existsSync(INPUTS_STAMP) && readFileSync(INPUTS_STAMP, "utf8").trim() === buildInputsKey();
}
