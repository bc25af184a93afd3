import { adminTarget, CliError, commandStart, type CommandIo } from "./admin-client.ts";
import { inventory, printSeed, reset, resources } from "./commands.ts";

export const INSPECT_COMMANDS = ["resources", "reset", "seed", "inventory"] as const;
export type InspectCommand = (typeof INSPECT_COMMANDS)[number];

const FLAGS: Record<InspectCommand, string[]> = {
  resources: ["url", "admin-token", "org", "json"],
  reset: ["url", "admin-token", "json"],
  seed: ["print", "data-dir", "seed", "json"],
  inventory: ["url", "admin-token", "set", "json"],
};

/** The flags of these commands together, for the command line's parser (-h/--help besides). */
export const INSPECT_FLAGS = {
  url: { type: "string" },
  "admin-token": { type: "string" },
  org: { type: "string" },
  json: { type: "boolean" },
  print: { type: "boolean" },
  "data-dir": { type: "string" },
  seed: { type: "string" },
  set: { type: "string", multiple: true },
} as const;

/** The values of INSPECT_FLAGS as parsed. */
export interface InspectFlags {
  url?: string;
  "admin-token"?: string;
  org?: string;
  json?: boolean;
  print?: boolean;
  "data-dir"?: string;
  seed?: string;
  set?: string[];
  help?: boolean;
}

/**
 * `cws resources | reset | inventory | seed --print` with the flags as the command line parsed
 * them (`error`: the parser's message of a bad flag): reads, resets or restocks a running server
 * (or prints the seed) and answers the exit status: 0, 1 when the server cannot be reached or
 * refuses, 2 for bad usage.
 */
export async function inspect(
  command: InspectCommand,
  parsed: { values: InspectFlags } | { error: string },
  io: CommandIo,
  help: string,
): Promise<number> {
  const start = commandStart(parsed, io, help);
  if (typeof start === "number") return start;
  const { values, usage } = start;
  for (const k of Object.keys(values))
    if (!FLAGS[command].includes(k)) return usage(`${command} does not take --${k}`);
  const json = values.json ?? false;
  try {
    if (command === "seed") {
      if (!values.print) return usage("seed needs --print");
      printSeed(values["data-dir"], values.seed, json, io.out);
    } else {
      const target = adminTarget(values.url, values["admin-token"]);
      if (command === "reset") await reset(target, json, io.out);
      else if (command === "inventory") await inventory(target, values.set ?? [], json, io.out);
      else await resources(target, values.org, json, io.out);
    }
    return 0;
  } catch (e) {
    if (!(e instanceof CliError) && !(e instanceof Error && e.message.startsWith("seed file"))) throw e;
    io.err(`cws: ${e.message}\n`);
    return 1;
  }
}
