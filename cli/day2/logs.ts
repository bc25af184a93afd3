/**
 * `cws logs UID [--tail N] [--previous] [--follow]`: a workload's log (a VM's serial console) as
 * the service gives it; `--follow` streams it until the workload ends it or Ctrl-C (which ends the
 * command cleanly, exit status 0). `--json`: each line as a JSON string, one a line (JSON Lines).
 */
import { COMMON_HELP, count, oneUid, type Command, type CommandContext } from "./command.ts";

const HELP = `Usage: cws logs UID [options]

Prints the log of a workload or sandbox (a VM's serial console), as the service gives it.

Options:
  --tail N          only the last N lines
  --previous        the log of the previous container (before its restart)
  --follow, -f      keep printing new lines until the workload ends or Ctrl-C
${COMMON_HELP}`;

/** Ctrl-C (SIGINT) or SIGTERM as an abort, for as long as `work` runs. */
async function untilInterrupted<T>(work: (s: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await work(stop.signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** Writes text as it comes: as is, or (json) each whole line as a JSON string. */
function writer(ctx: CommandContext): { write(text: string): void; end(): void } {
  if (!ctx.json) return { write: (t) => ctx.io.out(t), end: () => {} };
  let partial = "";
  const lines = (text: string) => {
    const parts = (partial + text).split("\n");
    partial = parts.pop()!;
    for (const l of parts) ctx.io.out(`${JSON.stringify(l)}\n`);
  };
  return { write: lines, end: () => partial && ctx.io.out(`${JSON.stringify(partial)}\n`) };
}

export const logs: Command = {
  name: "logs",
  help: HELP,
  flags: {
    tail: { type: "string" },
    previous: { type: "boolean" },
    follow: { type: "boolean", short: "f" },
  },
  check(args, values) {
    oneUid("logs", args);
    count("tail", values.tail);
  },
  async run(ctx) {
    const uid = ctx.args[0]!;
    const query = { tail: count("tail", ctx.values.tail), previous: ctx.values.previous === true };
    const out = writer(ctx);
    if (ctx.values.follow !== true) {
      out.write(await ctx.client.workloads.logs(uid, query));
      out.end();
      return 0;
    }
    return untilInterrupted(async (signal) => {
      try {
        for await (const chunk of ctx.client.workloads.followLogs(uid, query, { signal })) out.write(chunk);
      } catch (e) {
        if (!signal.aborted) throw e;
      }
      out.end();
      return 0;
    });
  },
};
