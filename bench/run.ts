/**
 * `npm run bench`: every benchmark in turn, each in its own process, figures printed as they
 * come. Speed and memory figures live here, never in tests.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const BENCHES = [
  "server.ts",
  "sandbox.ts",
  "sandbox-http.ts",
  "package-size.ts",
  "polling.ts",
  "provider-load.ts",
  "provider.ts",
  "adopt.ts",
  "scale.ts",
];
let failed = 0;
for (const file of BENCHES) {
  const path = fileURLToPath(new URL(`./${file}`, import.meta.url));
  if (!existsSync(path)) continue;
  console.log(`\n### bench/${file}`);
  const r = spawnSync(process.execPath, [path], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`bench/${file} failed (exit ${r.status})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
