/**
 * A new user's first command with one typo in the endpoint, in each tool (the runs of
 * test/e2e/failures/unreachable-runs.ts): the real `pulumi up` of a YAML program (the native
 * plugin), an Automation API `up` of the dynamic provider, `tofu apply` and `cws adopt`, against a
 * closed port at the default unreachable window (20 s), beside the floor: the same command against
 * a live reference server, where it succeeds. The time to failure should be the window plus about
 * the floor; before the window existed it was the operation's whole timeout (600 s). Median (min-max)
 * of the runs. No time is asserted anywhere: these are the figures.
 *
 * Run: node bench/unreachable.ts [--runs 3] [--only yaml|dynamic|tofu|adopt]
 */
import { existsSync } from "node:fs";
import { closedPort } from "../test/helpers/ports.ts";
import { startTestServer } from "../test/helpers/server.ts";
import { OPENTOFU } from "../test/helpers/tofu.ts";
import { cws, dynamicUp, tofuApply, yamlUp, type Ran } from "../test/e2e/failures/unreachable-runs.ts";
import { median } from "./median.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg("--runs") ?? 3);
const ONLY = arg("--only");

const server = await startTestServer();
const closed = `http://127.0.0.1:${await closedPort()}/v3`;
const COMMANDS: [name: string, run: (baseUrl: string) => Promise<Ran>][] = [
  ["yaml", (url) => yamlUp(server, url, undefined)],
  ["dynamic", (url) => dynamicUp(server, url, undefined)],
  ["tofu", (url) => tofuApply(server, url, undefined)],
  ["adopt", (url) => cws(["adopt", "--format", "pulumi"], url, undefined)],
];

const fmt = (xs: number[]) =>
  `${(median(xs) / 1000).toFixed(1)} s (${(Math.min(...xs) / 1000).toFixed(1)}-${(Math.max(...xs) / 1000).toFixed(1)})`;

try {
  console.log(`runs: ${RUNS}; closed port: ${closed}`);
  console.log("command  | fails after (closed port) | floor (live server) | failure minus floor");
  for (const [name, run] of COMMANDS) {
    if (ONLY && ONLY !== name) continue;
    if (name === "tofu" && !existsSync(OPENTOFU.path)) {
      console.log(`tofu     | skipped: ${OPENTOFU.path} is missing (npm run tofu:build)`);
      continue;
    }
    const failing: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const bad = await run(closed);
      if (bad.ok) throw new Error(`${name} succeeded against a closed port:\n${bad.output}`);
      failing.push(bad.ms);
      const good = await run(server.baseUrl);
      if (!good.ok) throw new Error(`${name} failed against the live server:\n${good.output}`);
      floor.push(good.ms);
    }
    const extra = failing.map((f, i) => f - floor[i]!);
    console.log(`${name.padEnd(8)} | ${fmt(failing).padEnd(25)} | ${fmt(floor).padEnd(19)} | ${fmt(extra)}`);
  }
} finally {
  await server.close();
}
