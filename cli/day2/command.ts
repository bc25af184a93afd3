/**
 * What the commands that operate an org's workloads share (`cws logs`, `events`, `exec`, `reboot`,
 * `list`; one module each beside this one): the command line (flags and arguments), the settings
 * (the provider's: --url, --org, CWS_BASE_URL, CWS_ORG, CWS_API_TOKEN, command-settings.ts), the
 * client made from them, and how a failure is said. Exit status: 0 done, 1 the service failed or
 * refused (a bad token, an unknown uid, a workload of the wrong type), 2 bad usage; `cws exec` in
 * a sandbox exits with the command's own status.
 */
import type { ParseArgsOptionsConfig } from "node:util";
import {
  CwsApiError,
  CwsUnreachableError,
  isAuthError,
  type CwsClient,
  isConnectionError,
  isNotFound,
} from "../../client/index.ts";
import type { Io } from "../../provider/adopt/command.ts";
import {
  SERVICE_FLAGS,
  commandClient,
  commandSettings,
  flagProblem,
  refusedTokenText,
} from "../../provider/frontend/command-settings.ts";
import { SETTINGS, type Settings } from "../../provider/frontend/settings.ts";
import { parseArguments } from "../flags.ts";

/** The flags every one of these commands takes (-h/--help besides). */
const COMMON_FLAGS = { ...SERVICE_FLAGS, json: { type: "boolean" } } as const;

/** The lines of the help that every one of these commands ends with. */
export const COMMON_HELP = `  --json            JSON instead of a table
  --url URL         the service's base URL including /v3 (default ${SETTINGS.baseUrl.env})
  --org SLUG        the org (default ${SETTINGS.org.env})
  -h, --help        show this help

The API token is read from ${SETTINGS.apiToken.env} only. Exit status: 0 done, 1 the service failed
or refused (bad token, unknown uid, wrong workload type), 2 bad usage. See docs/cli.md.
`;

/** Bad usage: said with a pointer to the help, exit status 2. */
export class UsageError extends Error {}
/** What the command cannot do with what it was given (a workload of the wrong type): exit status 1. */
export class CommandError extends Error {}

/** What a command runs with. */
export interface CommandContext {
  client: CwsClient;
  /** The flags' values, as parsed. */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  /** The arguments (those after `--` too), in their order. */
  args: string[];
  json: boolean;
  io: Io;
}

export interface Command {
  name: string;
  help: string;
  flags: ParseArgsOptionsConfig;
  /** Checks the arguments before anything is sent: throws a UsageError naming what is wrong. */
  check?(args: string[], values: CommandContext["values"]): void;
  /** Runs it; answers the exit status. */
  run(ctx: CommandContext): Promise<number>;
}

/** The one UID argument of a command that acts on a workload. */
export function oneUid(name: string, args: string[]): string {
  if (args.length === 0) throw new UsageError(`${name} needs the uid of a workload or sandbox`);
  if (args.length > 1) throw new UsageError(`${name} takes one uid (got ${args.join(" ")})`);
  return args[0]!;
}

/** A flag's value as a non-negative integer, or a UsageError naming it. */
export function count(flag: string, value: unknown, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`--${flag} must be an integer of at least ${min} (got '${String(value)}')`);
  return Number(value);
}

/** JSON as the commands print it: indented, one trailing newline. */
export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/** What went wrong, in the user's words: the token, an unknown uid, or the service's own message. */
function failureText(e: unknown, { org, baseUrl }: Settings, uid: string | undefined): string {
  if (isAuthError(e)) return refusedTokenText(org, (e as CwsApiError).serviceMessage);
  if (e instanceof CwsUnreachableError) return e.message;
  if (isConnectionError(e)) return `cannot reach the service at ${baseUrl}: ${(e as Error).message}`;
  if (isNotFound(e) && (e as CwsApiError).reason === "WORKLOAD_NOT_FOUND" && uid !== undefined)
    return `no workload or sandbox '${uid}' in org '${org}' (cws list shows what the org has)`;
  if (e instanceof CwsApiError) return `the service refused: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** Runs `command` with the arguments after its name; answers the exit status. */
export async function runCommand(
  command: Command,
  argv: string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const say = (text: string) => io.err(`cws ${command.name}: ${text}\n`);
  const parsed = parseArguments(argv, { ...command.flags, ...COMMON_FLAGS });
  let settings;
  try {
    if ("error" in parsed) throw new UsageError(flagProblem(parsed.error));
    if (parsed.values.help) {
      io.out(command.help);
      return 0;
    }
    command.check?.(parsed.positionals, parsed.values);
    const resolved = commandSettings(parsed.values as { url?: string; org?: string }, env);
    if ("problem" in resolved) throw new UsageError(resolved.problem);
    settings = resolved.settings;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    say(`${e.message}\nRun 'cws ${command.name} --help' for the options.`);
    return 2;
  }
  const { values, positionals } = parsed as Exclude<typeof parsed, { error: string }>;
  const client = commandClient(settings, command.name, io.err);
  try {
    return await command.run({
      client,
      values,
      args: positionals,
      json: values.json === true,
      io,
    });
  } catch (e) {
    if (e instanceof UsageError) {
      say(`${e.message}\nRun 'cws ${command.name} --help' for the options.`);
      return 2;
    }
    const text = failureText(e, settings, positionals[0]);
    say(client.scrub(text).split(settings.token).join("[secret]"));
    return 1;
  } finally {
    await client.close();
  }
}
