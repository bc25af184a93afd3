/**
 * The command line every `cws` command shares, the server's (`cws serve`, `cws resources`, ...) and
 * `cws adopt` alike: flags parsed one way, so that each command refuses a bad flag with the same
 * message naming it. The `cws` command (cws-command.ts) parses here with the flags each command
 * declares and hands the command the values.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

/** -h / --help, which every command takes. */
const HELP_FLAG = { help: { type: "boolean", short: "h" } } as const;

/** The values parseArgs answers for `options` and -h/--help. */
type ParsedValues<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O & typeof HELP_FLAG; strict: true; allowPositionals: boolean }>
>["values"];

/** `args` parsed strictly against `options` and -h/--help; positionals only if `allowPositionals`. */
function parse<O extends ParseArgsOptionsConfig>(
  args: string[],
  options: O,
  allowPositionals: boolean,
): { values: ParsedValues<O>; positionals: string[] } | { error: string } {
  try {
    const config = { args, options: { ...options, ...HELP_FLAG }, strict: true, allowPositionals } as const;
    const { values, positionals } = parseArgs(config);
    return { values, positionals };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * A command's flags: `args` parsed strictly (no positional argument, no unknown flag) against
 * `options` and -h/--help. Answers the values, or the parser's message of what is wrong (it names
 * the flag: "Unknown option '--frobnicate'").
 */
export function parseFlags<O extends ParseArgsOptionsConfig>(args: string[], options: O) {
  const parsed = parse(args, options, false);
  return "error" in parsed ? parsed : { values: parsed.values };
}

/**
 * The same for a command that also takes arguments (`cws logs UID`): the flags' values and the
 * arguments in their order (those after `--` too), or the parser's message of a bad flag.
 */
export function parseArguments<O extends ParseArgsOptionsConfig>(args: string[], options: O) {
  return parse(args, options, true);
}
