/**
 * The `cws` command: the top layer, over the reference server and the provider alike. It parses
 * the command line (cli/flags.ts) with the flags each command declares, and dispatches the values
 * to the server's commands (`serve`: server/cli.ts; `resources`, `reset`, `seed`, `inventory`:
 * server/cli/inspect.ts; `snapshot`: server/cli/snapshot.ts) or to `cws adopt` (provider/adopt/command.ts), which reads an org through
 * the provider's resource modules, or to the commands that operate an org's workloads over the
 * typed client (`logs`, `events`, `exec`, `reboot`, `list`: cli/day2/), or to `cws policy check`
 * (provider/policy/command.ts), the guardrails over a plan. Each command's module is
 * loaded only when it runs. bin/cws runs
 * it from the npm package (cli/cws.ts); the release executable runs it under the name `cws`
 * (cli/executable.ts).
 */
import type { Io } from "../provider/adopt/command.ts";
import type { Command } from "./day2/command.ts";
import { parseArguments, parseFlags } from "./flags.ts";

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
  return policy.policyCommand(parseArguments(args, policy.POLICY_FLAGS), io, env);
}

/** `cws resources | reset | inventory | seed <args>` (`help`: the text usage errors end with). */
export async function inspectCommand(command: string, args: string[], io: Io, help: string): Promise<number> {
  const { inspect, INSPECT_COMMANDS, INSPECT_FLAGS } = await import("../server/cli/inspect.ts");
  const known = INSPECT_COMMANDS.find((c) => c === command);
  if (!known) throw new Error(`'${command}' is not one of ${INSPECT_COMMANDS.join(", ")}`);
  return inspect(known, parseFlags(args, INSPECT_FLAGS), io, help);
}

/** The commands over the service's API (cli/day2/), by name: each loads its module. */
const DAY2: Record<string, () => Promise<Command>> = {
  logs: async () => (await import("./day2/logs.ts")).logs,
  events: async () => (await import("./day2/events.ts")).events,
  exec: async () => (await import("./day2/exec.ts")).exec,
  reboot: async () => (await import("./day2/reboot.ts")).reboot,
  list: async () => (await import("./day2/list.ts")).list,
};

/** `cws logs | events | exec | reboot | list <args>`: answers the exit status. */
export async function day2Command(
  command: string,
  args: string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const load = Object.hasOwn(DAY2, command) ? DAY2[command] : undefined;
  if (!load) throw new Error(`'${command}' is not one of ${Object.keys(DAY2).join(", ")}`);
  const { runCommand } = await import("./day2/command.ts");
  return runCommand(await load(), args, io, env);
}

/**
 * `cws snapshot ACTION [NAME] <flags>` (server/cli/snapshot.ts): the action and the name are its
 * arguments, parsed as every command's (cli/flags.ts).
 */
export async function snapshotCommand(args: string[], io: Io, help: string): Promise<number> {
  const { snapshot, SNAPSHOT_FLAGS } = await import("../server/cli/snapshot.ts");
  const parsed = parseArguments(args, SNAPSHOT_FLAGS);
  if ("error" in parsed) return snapshot(undefined, undefined, parsed, io, help);
  const [action, name, ...extra] = parsed.positionals;
  return snapshot(action, name, extra.length ? { error: `unexpected '${extra[0]}'` } : parsed, io, help);
}

/** Runs `cws <argv>`; the exit status is set on `process.exitCode` (or the process exits). */
export async function cws(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === "adopt") {
    process.exitCode = await adoptCommand(rest, STDIO);
    return;
  }
  if (command !== undefined && Object.hasOwn(DAY2, command)) {
    process.exitCode = await day2Command(command, rest, STDIO);
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
  if (command === "snapshot") {
    process.exitCode = await snapshotCommand(rest, STDIO, server.HELP);
    return;
  }
  if (command !== "serve") return server.usage(command);
  await server.serve(parseFlags(rest, server.SERVE_FLAGS));
}
