/**
 * Before any suite (vitest.config.ts `globalSetup`): dist/ built from the checkout as it is
 * (`npm run build`, about 20 s, only when dist/.inputs names other sources: scripts/build-inputs.ts),
 * then CWS_RUN_BUILD=1 for every test process, so that the launchers in bin/ run the bundles a
 * user installs rather than the TypeScript sources. OpenTofu starts its provider several times per
 * command and the engine its plugin for every command: a `tofu plan` of one key takes 0.95 s
 * against 2.3 s from the sources (`farm-bench`, 2-core machine).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { distIsCurrent } from "../scripts/build-inputs.ts";
import { REPO_ROOT } from "../scripts/repo-root.ts";

export default function setup(): void {
  if (!distIsCurrent()) {
    const started = Date.now();
    console.error(
      "[setup] building dist/ from the checkout (npm run build): the plugins the tests start run it",
    );
    const r = spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "build.ts")], { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status})`);
    console.error(`[setup] built dist/ in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  process.env.CWS_RUN_BUILD = "1";
}
