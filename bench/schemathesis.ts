/**
 * Schemathesis (pinned in .venv) against `cws serve`, the wide run: every phase (examples,
 * coverage, fuzzing, stateful), every check, 25 examples per operation, at three seeds. Prints,
 * per seed and in all: test cases, failures by check, the failures the hooks took as the
 * contract's own answer (test/server/schemathesis/hooks.py), the links covered in the stateful
 * phase, and the operations reached with a 2xx (admin and WebSocket operations aside).
 *
 *   node bench/schemathesis.ts [--seeds 1,2,3] [--examples 25] [--scenarios 200]
 *   node bench/schemathesis.ts --plain [--seeds 1,2,3,7] [--examples 25]
 *
 * --plain: the run a user makes with no setup (test/server/schemathesis/run.ts, PLAIN_CONFIG):
 * no hooks, no config but the org and the token, `--checks all -n 25`, admin and WebSocket
 * operations left out, Schemathesis's own stateful defaults (--scenarios is not used). What a
 * create needs comes from the document's examples, the running server's data. It also prints
 * the operations of the "Missing test data" warning (404 to every positive case).
 *
 * The suite runs one seed of it (test/server/schemathesis.test.ts).
 */
import { parseArgs } from "node:util";
import { runSchemathesis } from "../test/server/schemathesis/run.ts";

const { values } = parseArgs({
  options: {
    seeds: { type: "string" },
    plain: { type: "boolean", default: false },
    examples: { type: "string", default: "25" },
    scenarios: { type: "string", default: "200" },
  },
});
const plain = values.plain;
const seeds = (values.seeds ?? (plain ? "1,2,3,7" : "1,2,3")).split(",").map(Number);
const maxExamples = Number(values.examples);
const scenarios = Number(values.scenarios);

const reachedAll = new Set<string>();
let operations: string[] = [];
let failedRuns = 0;
console.log(
  plain
    ? `Schemathesis 4.32.5 against cws serve, plain (no hooks, no config but the org and the token): --checks all -n ${maxExamples}\n`
    : `Schemathesis 4.32.5 against cws serve: every check, ${maxExamples} examples per operation, ${scenarios} stateful scenarios\n`,
);
console.log(
  `| Seed | Cases | Failures by check | ${plain ? "Missing test data" : "Dropped by hooks.py"} | Links covered | Operations reached (2xx) | Time |`,
);
console.log(
  "|-----:|------:|-------------------|--------------------:|--------------:|-------------------------:|-----:|",
);
for (const seed of seeds) {
  const r = await runSchemathesis(plain ? { seed, maxExamples, plain } : { seed, maxExamples, scenarios });
  operations = r.operations;
  for (const op of r.reached) reachedAll.add(op);
  const failures =
    Object.entries(r.failures)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "none";
  if (r.exitCode !== 0) failedRuns++;
  const pct = r.links.total ? ` (${Math.round((r.links.covered / r.links.total) * 100)}%)` : "";
  console.log(
    `| ${seed} | ${r.cases} | ${failures} | ${plain ? r.missingTestData : r.filtered} | ${r.links.covered}/${r.links.total}${pct} | ${r.reached.length}/${r.operations.length} | ${r.seconds.toFixed(0)} s |`,
  );
  const unreached = r.operations.filter((op) => !r.reached.includes(op));
  if (unreached.length) console.log(`|   | not reached at seed ${seed}: ${unreached.join("; ")} |`);
  if (plain && r.missingTestData)
    console.log(r.output.split("Missing test data")[1]?.split("\n\n").slice(0, 3).join("\n") ?? "");
  if (r.exitCode !== 0)
    console.log(r.output.split("=== FAILURES ===")[1]?.split("=== SUMMARY ===")[0] ?? r.output);
}
const never = operations.filter((op) => !reachedAll.has(op));
console.log(`\nOperations reached with a 2xx in some run: ${reachedAll.size}/${operations.length}`);
if (never.length) console.log(`Never answered a 2xx:\n${never.map((op) => `  - ${op}`).join("\n")}`);
process.exit(failedRuns ? 1 : 0);
