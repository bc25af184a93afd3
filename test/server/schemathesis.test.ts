/**
 * Schemathesis, a fuzzer no one here wrote, against `cws serve` with the document it serves:
 * every check, the fuzzing and stateful phases, at one fixed seed. Its failures are
 * disagreements between the document and the server; the few that are the contract's own
 * answer are listed with their reasons in schemathesis/hooks.py. The wider run (every phase, 25
 * examples per operation, three seeds) is bench/schemathesis.ts.
 */
import { describe, expect, it } from "vitest";
import { runSchemathesis } from "./schemathesis/run.ts";

describe("Schemathesis against cws serve", () => {
  it("finds no failure at seed 1, and walks the document's links from the creates", async () => {
    const r = await runSchemathesis({
      seed: 1,
      maxExamples: 10,
      scenarios: 60,
      phases: ["fuzzing", "stateful"],
    });
    const failures = r.output.split("=== FAILURES ===")[1]?.split("=== SUMMARY ===")[0] ?? "";
    expect({ failures: r.failures, exitCode: r.exitCode }, failures || r.output.slice(-3000)).toEqual({
      failures: {},
      exitCode: 0,
    });
    expect(r.cases).toBeGreaterThan(1000);
    // Every documented operation is tested, the document's own among them; creates are accepted
    // and their links followed: workloads are read, deployed, verified and deleted, and a running
    // sandbox is forked, exec'd into, written to, published, frozen and thawed.
    expect(r.tested).toBe(r.operations.length);
    const W = "/v3/orgs/{org}/workloads/{uid}";
    for (const op of [
      "GET /v3/openapi.json",
      "POST /v3/orgs/{org}/workloads",
      `GET ${W}`,
      `POST ${W}/deploy`,
      "POST /v3/orgs/{org}/workloads/verify",
      `DELETE ${W}`,
      "POST /v3/orgs/{org}/ssh-keys",
      "POST /v3/orgs/{org}/volumes",
      `POST ${W}/fork`,
      `POST ${W}/exec`,
      `PUT ${W}/files`,
      `POST ${W}/publish`,
      `POST ${W}/freeze`,
      `POST ${W}/thaw`,
    ])
      expect(r.reached, op).toContain(op);
    // At this seed, with the server data from the document's examples (hooks.py holds no copy of
    // the seed): 53 of 56 operations and 79 of 80 links, 2782 cases (the hooks' copy: 55/56 and
    // 80/80), about 2 min on a 2-core machine.
    expect(r.reached.length).toBeGreaterThanOrEqual(r.operations.length - 3);
    expect(r.links.total).toBeGreaterThanOrEqual(80);
    expect(r.links.covered / r.links.total).toBeGreaterThanOrEqual(0.8);
  }, 240_000);
});
