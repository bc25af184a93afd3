/**
 * `npm run bench`: every benchmark in turn, each in its own process, figures printed as they
 * come. Speed and memory figures live here, never in tests. The plugins' benches (their start, and
 * tofu plan beside the Go floor) measure the package as installed: it is packed and installed once
 * for both.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { installPackage } from "./built-package.ts";

/** Benchmarks, and whether each takes the installed package (`--installed DIR`). */
const BENCHES: [file: string, installed?: boolean][] = [
  ["server.ts"],
  ["snapshot.ts"],
  ["schemathesis.ts"],
  ["sandbox.ts"],
  ["sandbox-http.ts"],
  ["package-size.ts"],
  ["polling.ts"],
  ["failed-wait.ts"],
  ["provider-load.ts"],
  ["plugin-start.ts", true],
  ["tofu.ts", true],
  ["provider.ts"],
  ["adopt.ts"],
  ["unreachable.ts"],
  ["scale.ts"],
];
let failed = 0;
let installed: string | undefined;
for (const [file, wantsInstalled] of BENCHES) {
  const path = fileURLToPath(new URL(`./${file}`, import.meta.url));
  if (!existsSync(path)) continue;
  console.log(`\n### bench/${file}`);
  const args = [path];
  if (wantsInstalled) {
    try {
      installed ??= await installPackage();
      args.push("--installed", installed);
    } catch (e) {
      console.error(`bench/${file}: the package could not be packed and installed: ${(e as Error).message}`);
      failed++;
      continue;
    }
  }
  const r = spawnSync(process.execPath, args, { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`bench/${file} failed (exit ${r.status})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
