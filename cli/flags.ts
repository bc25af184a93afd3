/**
 * The command line every `cws` command shares, the server's (`cws serve`, `cws resources`, ...) and
 * `cws adopt` alike: flags parsed one way, so that each command refuses a bad flag with the same
 * message naming it. The `cws` command (cws-command.ts) parses here with the flags each command
 * declares and hands the command the values.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

/** -h / --help, which every command takes. */
const HELP_FLAG = { help: { type: "boolean", short: "h" } } as const;

/**
 * A command's flags: `args` parsed strictly (no positional argument, no unknown flag) against
 * `options` and -h/--help. Answers the values, or the parser's message of what is wrong (it names
 * the flag: "Unknown option '--frobnicate'").
 */
export function parseFlags<O extends ParseArgsOptionsConfig>(args: string[], options: O) {
  const parsed = parseFlagsAndPositionals(args, options);
  if ("error" in parsed) return parsed;
  const [extra] = parsed.positionals;
  if (extra !== undefined)
    return { error: `Unexpected argument '${extra}'. This command does not take positional arguments` };
  return { values: parsed.values };
}

/** As parseFlags, for a command that also takes positional arguments (`cws policy check PLAN`). */
export function parseFlagsAndPositionals<O extends ParseArgsOptionsConfig>(args: string[], options: O) {
  try {
    const config = {
      args,
      options: { ...options, ...HELP_FLAG },
      strict: true,
      allowPositionals: true,
    } as const;
    const { values, positionals } = parseArgs(config);
    return { values, positionals };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
