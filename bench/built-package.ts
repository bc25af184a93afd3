/** The package as users install it, for the benches that measure it: `npm run build` into dist/. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../scripts/repo-root.ts";

/** The built package's folder. */
export const DIST = join(REPO_ROOT, "dist");

/** Runs `npm run build` (scripts/build.ts), its output on this process's; throws when it fails. */
export function buildPackage(): void {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "build.ts")], { stdio: "inherit" });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal})`);
}
