/**
 * What the dynamic provider adds to the start of the engine's provider process, which starts
 * afresh for every operation: the time to load the adapter and answer one check and one diff
 * (all a preview asks for), then to load the HTTP client (what refresh, up and destroy need
 * next). Measured for the bundle the build makes (dist/dynamic/) and for the same code as tsc
 * compiled it (dist/provider, dist/client), in fresh processes taken in turn, beside the floor:
 * loading @pulumi/pulumi, which every dynamic provider process does first. Node's compile cache
 * is on, as in the provider process, and warmed by one untimed run of each.
 *
 * Run: node bench/provider-load.ts [--runs 9] (builds the package first).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../scripts/repo-root.ts";
import { DIST, buildPackage } from "./built-package.ts";
import { median } from "./median.ts";

const i = process.argv.indexOf("--runs");
const RUNS = Number((i > 0 ? process.argv[i + 1] : undefined) ?? 9);

const VARIANTS = {
  bundle: { adapter: "dynamic/provider/dynamic/adapter.js", client: "dynamic/client/client.js" },
  compiled: { adapter: "provider/dynamic/adapter.js", client: "client/client.js" },
};
type Variant = keyof typeof VARIANTS;

/** Runs in a fresh process: prints the three times in ms as JSON. */
const PROBE = `
const { createRequire, enableCompileCache, flushCompileCache } = require("node:module");
enableCompileCache();
const req = createRequire(process.argv[1] + "/");
let t = performance.now();
req("@pulumi/pulumi");
const pulumi = performance.now() - t;
t = performance.now();
const adapter = req(process.argv[2]);
const inputs = { name: "v", sizeInMb: 512, resourceName: "gpu-rental-small" };
const checked = adapter.check("Volume", {}, inputs);
if (checked.failures.length) throw new Error(JSON.stringify(checked.failures));
adapter.diff("Volume", "vol-1", checked.inputs, checked.inputs);
const checkDiff = performance.now() - t;
t = performance.now();
req(process.argv[3]);
const client = performance.now() - t;
flushCompileCache();
console.log(JSON.stringify({ pulumi, checkDiff, client }));
`;

interface Times {
  pulumi: number;
  checkDiff: number;
  client: number;
}

function probe(v: Variant): Times {
  const { adapter, client } = VARIANTS[v];
  const r = spawnSync(process.execPath, ["-e", PROBE, REPO_ROOT, join(DIST, adapter), join(DIST, client)], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`probe of ${v} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Times;
}

buildPackage();

const names = Object.keys(VARIANTS) as Variant[];
for (const v of names) probe(v); // warms the compile cache
const runs: Record<Variant, Times[]> = { bundle: [], compiled: [] };
for (let r = 0; r < RUNS; r++) for (const v of names) runs[v].push(probe(v));

const ms = (x: number) => `${x.toFixed(0)} ms`;
console.log(`\nDynamic provider start (median of ${RUNS} fresh processes each, taken in turn)\n`);
console.log(`| code | @pulumi/pulumi (floor) | adapter + check + diff | + client | ours / floor |`);
console.log(`|---|---:|---:|---:|---:|`);
for (const v of names) {
  const t = (k: keyof Times) => median(runs[v].map((x) => x[k]));
  const ours = t("checkDiff") + t("client");
  console.log(
    `| ${v} | ${ms(t("pulumi"))} | ${ms(t("checkDiff"))} | ${ms(t("client"))} | ${(ours / t("pulumi")).toFixed(2)}x |`,
  );
}
