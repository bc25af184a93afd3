/**
 * The package as users install it, for the benches that measure it: `npm run build` into dist/,
 * or the whole way, `npm pack` and the tarball installed into an empty project.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { REPO_ROOT } from "../scripts/repo-root.ts";
import { runProcess } from "../scripts/run.ts";

/** The built package's folder. */
export const DIST = join(REPO_ROOT, "dist");

/** Runs `npm run build` (scripts/build.ts), its output on this process's; throws when it fails. */
export function buildPackage(): void {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "build.ts")], { stdio: "inherit" });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal})`);
}

/**
 * A user's environment: this Node first on PATH (the launchers take `node` from PATH when the
 * project has no `node` package), and none of npm's per-script variables, which would point npm
 * at this checkout.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === "NODE_OPTIONS" || k === "INIT_CWD") continue;
    if (
      k.startsWith("npm_") &&
      !["npm_config_cache", "npm_config_registry", "npm_config_userconfig"].includes(k)
    )
      continue;
    env[k] = v;
  }
  env.PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);
  return { ...env, ...extra };
}

/**
 * `npm pack` of the checkout (which builds it) and the tarball installed into a new, empty project
 * under the system's temp folder, removed when this process exits; resolves to that project's
 * folder (its node_modules/.bin holds the launchers).
 */
export async function installPackage(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "cws-bench-installed-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const packed = await runProcess("npm", ["pack", "--json", "--pack-destination", dir], { env: userEnv() });
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  const project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "cws-bench",
      private: true,
      dependencies: { "pulumi-cws": `file:${join(dir, info!.filename)}` },
    }),
  );
  await runProcess("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: project,
    env: userEnv(),
  });
  return project;
}
