/**
 * `cws exec UID -- COMMAND...`: runs a command in a RENTAL workload, its output streamed as it
 * comes, or in a sandbox, its output and its exit status as `cws`'s own (the sandbox's route runs
 * one shell command line: the arguments are quoted for it). Another type is refused before anything
 * is sent.
 */
import { COMMON_HELP, CommandError, UsageError, count, printJson, type Command } from "./command.ts";

const HELP = `Usage: cws exec UID [options] -- COMMAND [ARG...]

Runs COMMAND in a RENTAL workload (its output streamed) or in a sandbox (its output, then its exit
status as cws's own; 124 when it timed out).

Options:
  --timeout SEC     sandboxes: how long the command may run, 1-600 (the service's default: 60)
${COMMON_HELP}`;

/** The exit status of a command the sandbox stopped at its timeout (as timeout(1) says it). */
export const TIMED_OUT = 124;

/** `argv` as one POSIX shell command line: each argument that needs it in single quotes. */
export function shellLine(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(" ");
}

export const exec: Command = {
  name: "exec",
  help: HELP,
  flags: { timeout: { type: "string" } },
  check(args, values) {
    if (args.length === 0) throw new UsageError("exec needs the uid of a RENTAL workload or a sandbox");
    if (args.length === 1)
      throw new UsageError("exec needs a command after the uid: cws exec UID -- COMMAND");
    const timeout = count("timeout", values.timeout, 1);
    if (timeout !== undefined && timeout > 600)
      throw new UsageError(`--timeout must be at most 600 seconds (got ${timeout})`);
  },
  async run({ client, args, values, json, io }) {
    const [uid, ...argv] = args as [string, ...string[]];
    const w = await client.workloads.get(uid);
    if (w.type === "RENTAL") {
      let output = "";
      for await (const chunk of client.workloads.exec(uid, argv)) {
        if (json) output += chunk;
        else io.out(chunk);
      }
      if (json) printJson(io, { output });
      return 0;
    }
    if (w.type !== "SANDBOX")
      throw new CommandError(
        `${uid} is a ${w.type} workload: cws exec runs commands in RENTAL workloads and sandboxes` +
          (w.type === "VM" ? ` (a VM's console: cws logs ${uid})` : ""),
      );
    const timeout = count("timeout", values.timeout, 1);
    const r = await client.sandboxes.exec(uid, {
      cmd: shellLine(argv),
      ...(timeout !== undefined ? { timeout_sec: timeout } : {}),
    });
    if (json) printJson(io, r);
    else {
      io.out(r.stdout);
      io.err(r.stderr);
    }
    if (!r.timed_out) return r.code;
    io.err(`cws exec: the command did not end within its timeout in ${uid}; it was stopped\n`);
    return TIMED_OUT;
  },
};
