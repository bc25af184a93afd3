/**
 * The `cws` command: the top layer, over the reference server and the provider alike. It parses
 * the command line (cli/flags.ts) with the flags each command declares, and dispatches the values
 * to the server's commands (`serve`: server/cli.ts; `resources`, `reset`, `seed`, `inventory`:
 * server/cli/inspect.ts), to `cws adopt` (provider/adopt/command.ts), which reads an org through
 * the provider's resource modules, or to `cws policy check` (provider/policy/command.ts), the
 * guardrails over a plan. Each command's module is loaded only when it runs. bin/cws runs
 * it from the npm package (cli/cws.ts); the release executable runs it under the name `cws`
 * (cli/executable.ts).
 */
import type { Io } from "../provider/adopt/command.ts";
import { parseFlags, parseFlagsAndPositionals } from "./flags.ts";

const STDIO: Io = {
  out: (t: string) => void process.stdout.write(t),
  err: (t: string) => void process.stderr.write(t),
};

/** `cws adopt <args>`: answers the exit status. */
export async function adoptCommand(
  args: string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const adopt = await import("../provider/adopt/command.ts");
  return adopt.adoptCommand(parseFlags(args, adopt.ADOPT_FLAGS), io, env);
}

/** `cws policy check PLAN.json --config FILE`: answers the exit status. */
export async function policyCommand(
  args: string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const policy = await import("../provider/policy/command.ts");
  return policy.policyCommand(parseFlagsAndPositionals(args, policy.POLICY_FLAGS), io, env);
}

/** `cws resources | reset | inventory | seed <args>` (`help`: the text usage errors end with). */
export async function inspectCommand(command: string, args: string[], io: Io, help: string): Promise<number> {
  const { inspect, INSPECT_COMMANDS, INSPECT_FLAGS } = await import("../server/cli/inspect.ts");
  const known = INSPECT_COMMANDS.find((c) => c === command);
  if (!known) throw new Error(`'${command}' is not one of ${INSPECT_COMMANDS.join(", ")}`);
  return inspect(known, parseFlags(args, INSPECT_FLAGS), io, help);
}

/** Runs `cws <argv>`; the exit status is set on `process.exitCode` (or the process exits). */
export async function cws(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === "adopt") {
    process.exitCode = await adoptCommand(rest, STDIO);
    return;
  }
  if (command === "policy") {
    process.exitCode = await policyCommand(rest, STDIO);
    return;
  }
  const server = await import("../server/cli.ts");
  const { INSPECT_COMMANDS } = await import("../server/cli/inspect.ts");
  if (INSPECT_COMMANDS.some((c) => c === command)) {
    process.exitCode = await inspectCommand(command!, rest, STDIO, server.HELP);
    return;
  }
  if (command !== "serve") return server.usage(command);
  await server.serve(parseFlags(rest, server.SERVE_FLAGS));
}
