/**
 * `WorkloadExec`: runs a command in a RENTAL workload or a sandbox and shows its output as the
 * action's progress, line by line. A sandbox reports the exit code (and whether its timeout ended
 * the command): a non-zero code or a timeout fails the action with the code and the last lines of
 * output, unless `allowFailure` says otherwise. A RENTAL workload streams its output and reports
 * no exit code: the action fails only when the stream does, or when it does not end within the
 * timeout. The timeout is the service's rule for a sandbox's exec (ExecBody.timeout_sec: 1-600 s,
 * default 60), the same bound for both.
 */
import { z } from "zod";
import { ExecBody, LIMITS, type Workload } from "../../../api/index.ts";
import type { ActionContext, ActionDefinition } from "../../core/action.ts";
import type { CheckFailure, Props } from "../../core/types.ts";
import { containsUnknown } from "../../core/unknowns.ts";
import {
  ACTION_WAIT_SEC,
  checkTarget,
  named,
  runningTarget,
  workloadIdInput,
  type TypeRule,
} from "./actions.ts";

/** How many lines of output a failure quotes. */
export const FAILURE_TAIL_LINES = 20;
/** How many lines of output are shown as progress; the rest are counted. */
export const SHOWN_LINES = 1000;

const onlyRentalOrSandbox: TypeRule = (w) =>
  w.type === "RENTAL" || w.type === "SANDBOX"
    ? undefined
    : `exec runs in RENTAL workloads and sandboxes only: workload ${named(w)} is a ${w.type}${w.type === "VM" ? " (reach a VM over SSH: its public_ip and ssh_port)" : ""}`;

/** An argument as a POSIX shell reads it back: quoted unless it is plain. */
export function shellWord(arg: string): string {
  return /^[A-Za-z0-9_./=:@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The argument list as the one shell command a sandbox runs (ExecBody.cmd). */
export const shellCommand = (argv: readonly string[]) => argv.map(shellWord).join(" ");

/** Shows output as progress, a line at a time, keeping the last lines for a failure's message. */
class OutputLines {
  readonly #progress: (line: string) => void;
  readonly #tail: string[] = [];
  #partial = "";
  #shown = 0;
  #hidden = 0;

  constructor(progress: (line: string) => void) {
    this.#progress = progress;
  }

  /** A chunk of output as it comes: complete lines are shown, a partial one waits for its end. */
  write(chunk: string, prefix = ""): void {
    const lines = (this.#partial + chunk).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const l of lines) this.#line(prefix + l.replace(/\r$/, ""));
  }

  /** The last partial line, and a count of the lines not shown. */
  end(): void {
    if (this.#partial) this.#line(this.#partial);
    this.#partial = "";
    if (this.#hidden) this.#progress(`(${this.#hidden} more lines of output not shown)`);
  }

  #line(line: string): void {
    this.#tail.push(line);
    if (this.#tail.length > FAILURE_TAIL_LINES) this.#tail.shift();
    if (this.#shown < SHOWN_LINES) {
      this.#shown++;
      this.#progress(line);
    } else this.#hidden++;
  }

  /** The last lines, for a failure's message. */
  tail(): string {
    return this.#tail.length ? `last lines of output:\n${this.#tail.join("\n")}` : "no output";
  }
}

async function execInSandbox(ctx: ActionContext, w: Workload, argv: string[], timeoutSec: number) {
  const r = await ctx.client.sandboxes.exec(
    w.uid,
    { cmd: shellCommand(argv), timeout_sec: timeoutSec },
    { signal: ctx.signal },
  );
  const out = new OutputLines(ctx.progress);
  out.write(r.stdout.endsWith("\n") || !r.stdout ? r.stdout : `${r.stdout}\n`);
  out.write(r.stderr.endsWith("\n") || !r.stderr ? r.stderr : `${r.stderr}\n`, "stderr: ");
  out.end();
  return { code: r.code, timedOut: r.timed_out, tail: out.tail() };
}

async function execInRental(ctx: ActionContext, w: Workload, argv: string[], timeoutSec: number) {
  const timeout = AbortSignal.timeout(timeoutSec * 1000);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
  const out = new OutputLines(ctx.progress);
  try {
    for await (const chunk of ctx.client.workloads.exec(w.uid, argv, { signal })) out.write(chunk);
  } catch (e) {
    if (!timeout.aborted || ctx.signal?.aborted) throw e;
    out.end();
    return { code: undefined, timedOut: true, tail: out.tail() };
  }
  out.end();
  return { code: undefined, timedOut: false, tail: out.tail() };
}

export const workloadExec: ActionDefinition = {
  name: "WorkloadExec",
  kind: "Workload",
  description:
    "Runs a command in a RENTAL workload or a sandbox and shows its output as the action's progress. In a sandbox, a non-zero exit code or a timeout fails the action with the code and the last lines of output, unless allow_failure is set; a RENTAL workload reports no exit code. VM and BM workloads have no exec, and a workload that is not running is refused.",
  inputs: {
    workloadId: workloadIdInput("RENTAL workload or sandbox"),
    command: {
      type: z.array(z.string()).min(1, "command needs at least one argument (the program to run)"),
      description:
        'The program and its arguments, one per element (`["sh", "-c", "echo $HOME"]` for a shell). A sandbox runs them as one shell command, each argument quoted.',
      required: true,
    },
    timeoutSec: {
      type: ExecBody.shape.timeout_sec.unwrap(),
      description: `How long the command may run, in seconds (${LIMITS.execTimeoutMinSec}-${LIMITS.execTimeoutMaxSec}, the service's bound for a sandbox's exec); a command still running then fails the action.`,
      default: LIMITS.execTimeoutDefaultSec,
    },
    allowFailure: {
      type: z.boolean(),
      description:
        "When true, a non-zero exit code or a timeout is shown as progress and the action succeeds; otherwise it fails the apply.",
      default: false,
    },
  },
  validate(args: Props): CheckFailure[] {
    const argv = args.command;
    if (!Array.isArray(argv) || containsUnknown(argv)) return [];
    const cmd = ExecBody.shape.cmd.safeParse(shellCommand(argv as string[]));
    return cmd.success
      ? []
      : [{ property: "command", reason: `command, as one shell command, ${cmd.error.issues[0]?.message}` }];
  },
  check: (ctx, args, plan) => checkTarget("cws_workload_exec", onlyRentalOrSandbox, ctx, args, plan),
  async invoke(ctx, args) {
    const timeoutSec = (args.timeoutSec as number | undefined) ?? LIMITS.execTimeoutDefaultSec;
    const argv = args.command as string[];
    const uid = String(args.workloadId);
    const w = await runningTarget("cws_workload_exec", onlyRentalOrSandbox, ctx, uid, ACTION_WAIT_SEC * 1000);
    ctx.progress(`running the command in ${w.type === "SANDBOX" ? "sandbox" : "workload"} ${named(w)}`);
    const run = w.type === "SANDBOX" ? execInSandbox : execInRental;
    const r = await run(ctx, w, argv, timeoutSec);
    const failure = r.timedOut
      ? `the command did not finish within timeout_sec (${timeoutSec} s)`
      : r.code
        ? `the command exited with code ${r.code}`
        : undefined;
    if (!failure) {
      ctx.progress(r.code === undefined ? "the command's output ended" : "the command exited with code 0");
      return;
    }
    if (args.allowFailure) {
      ctx.progress(`${failure} (allowed: allow_failure is set)`);
      return;
    }
    throw new Error(`${failure} in ${named(w)}; ${r.tail}`);
  },
  notes:
    "The command's output is the action's progress: Terraform prints each line as it comes (a sandbox's after the command ends). The workload's attributes do not change, so the plan after it has nothing to do. The command is never printed (it may hold a secret).",
  example: { workloadId: "${cws_sandbox.box.id}", command: ["sh", "-c", "echo migrated"] },
};
