/**
 * `cws list [KIND] [filters]`: what an org has, found by the list resources that `terraform query`,
 * `pulumi do ... list` and `cws adopt` read (provider/resources/<kind>/list.ts), with their filters
 * as flags (`projectId` as --project-id); without KIND, every kind, unfiltered, as `cws adopt`
 * lists an org.
 */
import type { Listed } from "../../provider/core/list.ts";
import { listFailures } from "../../provider/core/list.ts";
import { kindOf } from "../../provider/adopt/adopt.ts";
import { ADOPT_KINDS, listOrg } from "../../provider/adopt/inventory.ts";
import { LISTS } from "../../provider/registry.ts";
import { formatTable, type Column } from "../../server/cli/table.ts";
import { COMMON_HELP, UsageError, printJson, type Command } from "./command.ts";

/** A filter's flag: its property name in kebab case. */
const flagOf = (filter: string) => filter.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Every list's filters, by flag. */
const FILTERS = new Map(
  ADOPT_KINDS.flatMap((k) => Object.keys(LISTS[k]!.filters).map((f) => [flagOf(f), f] as const)),
);

const filterHelp = ADOPT_KINDS.map((k) => {
  const flags = Object.keys(LISTS[k]!.filters).map((f) => `--${flagOf(f)}`);
  return `  ${k.padEnd(18)}${flags.join(", ") || "(none)"}`;
}).join("\n");

const HELP = `Usage: cws list [KIND] [filters] [options]

Lists the objects of an org that can be managed: every kind, or KIND, one of
${ADOPT_KINDS.join(", ")}. The same lists as \`terraform query\`, \`pulumi do ... list\` and
\`cws adopt\` (docs/query.md for what each filter selects).

Filters (each takes a value; they need a KIND):
${filterHelp}

Options:
${COMMON_HELP}`;

const COLUMNS: Column<Listed>[] = [
  { title: "KIND", value: (l) => l.kind },
  { title: "NAME", value: (l) => l.name },
  { title: "UID", value: (l) => l.uid },
  { title: "DETAIL", value: (l) => l.summary ?? "" },
  { title: "CREATED", value: (l) => l.createdAt },
];

/** The filters given, by property name. */
function givenFilters(values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [flag, filter] of FILTERS) if (typeof values[flag] === "string") out[filter] = values[flag];
  return out;
}

/** The kind named (any case, kebab or snake: ssh-key), with the filters checked against its list. */
function parse(args: string[], values: Record<string, unknown>) {
  if (args.length > 1) throw new UsageError(`list takes one KIND (got ${args.join(" ")})`);
  const filters = givenFilters(values);
  const flags = Object.keys(filters).map((f) => `--${flagOf(f)}`);
  if (args.length === 0) {
    if (flags.length)
      throw new UsageError(
        `filters need a KIND (${flags.join(", ")}): e.g. cws list Workload ${flags[0]} ...`,
      );
    return { kinds: ADOPT_KINDS, filters };
  }
  const kind = kindOf(args[0]!);
  if (!kind) throw new UsageError(`KIND must be one of ${ADOPT_KINDS.join(", ")} (got '${args[0]}')`);
  const def = LISTS[kind]!;
  const own = Object.keys(def.filters).map((f) => `--${flagOf(f)}`);
  const foreign = flags.find((f) => !own.includes(f));
  if (foreign)
    throw new UsageError(
      `${foreign} is not a filter of ${kind}: its filters are ${own.join(", ") || "none"}`,
    );
  const failure = listFailures(def, filters)[0];
  if (failure) throw new UsageError(`--${flagOf(failure.property)}: ${failure.reason}`);
  return { kinds: [kind], filters };
}

export const list: Command = {
  name: "list",
  help: HELP,
  flags: Object.fromEntries([...FILTERS.keys()].map((flag) => [flag, { type: "string" }])),
  check: (args, values) => void parse(args, values),
  async run({ client, args, values, json, io }) {
    const { kinds, filters } = parse(args, values);
    const found: Listed[] = [];
    if (kinds.length > 1) found.push(...(await listOrg(client)));
    else for await (const l of LISTS[kinds[0]!]!.list(client, filters)) found.push(l);
    if (json) printJson(io, found);
    else if (!found.length) io.out(`nothing found in org '${client.org}'\n`);
    else io.out(formatTable(COLUMNS, found));
    return 0;
  },
};
