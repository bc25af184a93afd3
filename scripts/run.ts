/**
 * The one way the scripts, the tests and the benchmarks run a program to its end: `runProcess`
 * keeps what it prints (stdout and stderr apart, and both as they came) and rejects on a non-zero
 * exit with an error that names the command and its exit code and ends with the tail of that
 * output; `run` resolves to the output alone. `onPath` finds a program on PATH.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { REPO_ROOT } from "./repo-root.ts";

export interface RunOptions {
  /** The working directory; the repository root when left out. */
  cwd?: string;
  /** The environment; this process's when left out. */
  env?: NodeJS.ProcessEnv;
  /** Resolve with the result on a non-zero exit too, instead of rejecting. */
  allowFailure?: boolean;
  /** Called with the number of stderr lines so far as they come (the progress of a long build). */
  onStderrLine?: (lines: number) => void;
}

export interface RunResult {
  /** The exit code; null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved in the order they came. */
  output: string;
}

/** How many characters of the output (its end) a failure's message carries. */
const FAILURE_TAIL = 8000;

/** A run that exited non-zero (or was killed): its message ends with the tail of the output. */
export class RunError extends Error {
  readonly result: RunResult;
  constructor(command: string, result: RunResult) {
    const tail = result.output.trim() ? `:\n${result.output.slice(-FAILURE_TAIL)}` : "";
    super(`${command} exited with ${result.code ?? result.signal}${tail}`);
    this.result = result;
  }
}

/** Runs `cmd args` to its end, stdin closed; resolves to everything it printed and its exit code. */
export function runProcess(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: opts.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let output = "";
    let lines = 0;
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      output += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
      output += text;
      if (opts.onStderrLine) for (const ch of text) if (ch === "\n") opts.onStderrLine(++lines);
    });
    child.on("error", (e) => reject(new Error(`could not start ${cmd}: ${e.message}`)));
    child.on("close", (code, signal) => {
      const result = { code, signal, stdout, stderr, output };
      if (code === 0 || opts.allowFailure) resolve(result);
      else reject(new RunError(`${cmd} ${args.join(" ")}`, result));
    });
  });
}

/** Runs `cmd args` to its end; resolves to its stdout followed by its stderr. */
export async function run(
  cmd: string,
  args: string[],
  opts: Omit<RunOptions, "allowFailure"> = {},
): Promise<string> {
  const r = await runProcess(cmd, args, opts);
  return r.stdout + r.stderr;
}

/** The path of the program `name` in a folder of PATH, or undefined when there is none. */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}
