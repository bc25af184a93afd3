/**
 * `cws reboot UID`: reboots a VM workload and waits until it runs again, its progress on standard
 * error (the wait's own lines, client/wait-progress.ts); a failed wait says the workload's last
 * events and log lines (the client's diagnosis). Another type is refused before anything is sent.
 */
import type { WorkloadState } from "../../api/index.ts";
import { progressLine } from "../../client/index.ts";
import { formatTable } from "../../server/cli/table.ts";
import { COMMON_HELP, CommandError, count, oneUid, printJson, type Command } from "./command.ts";

const HELP = `Usage: cws reboot UID [options]

Reboots a VM workload and waits until it is running again, saying its progress on standard error.

Options:
  --timeout SEC     how long to wait for running (default 600)
${COMMON_HELP}`;

const DEFAULT_TIMEOUT_SEC = 600;

export const reboot: Command = {
  name: "reboot",
  help: HELP,
  flags: { timeout: { type: "string" } },
  check(args, values) {
    oneUid("reboot", args);
    count("timeout", values.timeout, 1);
  },
  async run({ client, args, values, json, io }) {
    const uid = args[0]!;
    const w = await client.workloads.get(uid);
    if (w.type !== "VM")
      throw new CommandError(
        `${uid} is a ${w.type === "SANDBOX" ? "sandbox" : `${w.type} workload`}: cws reboot reboots VM workloads only`,
      );
    await client.workloads.reboot(uid);
    const timeoutMs = (count("timeout", values.timeout, 1) ?? DEFAULT_TIMEOUT_SEC) * 1000;
    const state: WorkloadState = await client.workloads.waitForStatus(uid, "running", {
      timeoutMs,
      onProgress: (p) => io.err(`cws reboot: ${w.name}: ${progressLine(p)}\n`),
    });
    if (json) printJson(io, state);
    else
      io.out(
        formatTable(
          [
            { title: "UID", value: () => uid },
            { title: "NAME", value: () => w.name },
            { title: "TYPE", value: () => w.type },
            { title: "STATUS", value: (s: WorkloadState) => s.status },
          ],
          [state],
        ),
      );
    return 0;
  },
};
