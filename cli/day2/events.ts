/**
 * `cws events UID`: a workload's events, oldest first, every page: a table (time, event, reason,
 * status, message, exit code) or, with `--json`, the records as the service gives them.
 */
import type { WorkloadEvent } from "../../api/index.ts";
import { printable } from "../../client/index.ts";
import { formatTable, type Column } from "../../server/cli/table.ts";
import { COMMON_HELP, oneUid, printJson, type Command } from "./command.ts";

const HELP = `Usage: cws events UID [options]

Prints the events of a workload or sandbox, oldest first: status changes, image pulls, exits,
reboots, execs.

Options:
${COMMON_HELP}`;

const COLUMNS: Column<WorkloadEvent>[] = [
  { title: "TIME", value: (e) => e.created_at },
  { title: "EVENT", value: (e) => e.event_type },
  { title: "REASON", value: (e) => printable(e.reason ?? "") },
  { title: "STATUS", value: (e) => e.new_status ?? "" },
  { title: "EXIT", value: (e) => (e.exit_code === null ? "" : String(e.exit_code)), right: true },
  { title: "MESSAGE", value: (e) => printable(e.display_message ?? e.message ?? "") },
];

export const events: Command = {
  name: "events",
  help: HELP,
  flags: {},
  check: (args) => void oneUid("events", args),
  async run({ client, args, json, io }) {
    const all: WorkloadEvent[] = [];
    for await (const e of client.workloads.iterateEvents(args[0]!)) all.push(e);
    if (json) printJson(io, all);
    else if (!all.length) io.out(`no events for ${args[0]}\n`);
    else io.out(formatTable(COLUMNS, all));
    return 0;
  },
};
