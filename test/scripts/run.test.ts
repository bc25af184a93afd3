/** The process runner of scripts/run.ts: what it resolves to, and what a failure says. */
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/repo-root.ts";
import { onPath, run, RunError, runProcess } from "../../scripts/run.ts";

const node = process.execPath;
/** A Node program that writes `out` to stdout, `err` to stderr and exits with `code`. */
const prints = (out: string, err: string, code = 0) => [
  "-e",
  `process.stdout.write(${JSON.stringify(out)}); process.stderr.write(${JSON.stringify(err)}); process.exitCode = ${code};`,
];

describe("run", () => {
  it("resolves to stdout followed by stderr, in the repository root by default", async () => {
    expect(await run(node, prints("out\n", "err\n"))).toBe("out\nerr\n");
    expect((await run(node, ["-e", "process.stdout.write(process.cwd())"])).trim()).toBe(REPO_ROOT);
  });

  it("passes the working directory and the environment it is given", async () => {
    const out = await run(node, ["-e", "process.stdout.write(process.cwd() + ' ' + process.env.RUN_TEST)"], {
      cwd: "/",
      env: { ...process.env, RUN_TEST: "yes" },
    });
    expect(out).toBe("/ yes");
  });

  it("rejects on a non-zero exit with the command, the exit code and the output's tail", async () => {
    const failure = run(node, prints("the output", "what went wrong", 3));
    await expect(failure).rejects.toThrow(RunError);
    await expect(failure).rejects.toThrow(/exited with 3:\nthe outputwhat went wrong$/);
  });

  it("resolves with the exit code and the output apart when failure is allowed", async () => {
    const r = await runProcess(node, prints("o", "e", 2), { allowFailure: true });
    expect(r).toMatchObject({ code: 2, signal: null, stdout: "o", stderr: "e", output: "oe" });
  });

  it("counts stderr lines as they come", async () => {
    const counts: number[] = [];
    await run(node, prints("", "a\nb\nc\n"), { onStderrLine: (n) => counts.push(n) });
    expect(counts).toEqual([1, 2, 3]);
  });

  it("says when the program cannot start, and finds programs on PATH", async () => {
    await expect(run("/nonexistent/program", [])).rejects.toThrow(/could not start \/nonexistent\/program/);
    expect(onPath("node")).toBeDefined();
    expect(onPath("no-such-program-anywhere")).toBeUndefined();
  });
});
