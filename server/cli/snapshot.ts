import type { SnapshotInfo, SnapshotList, SnapshotRestored } from "../../api/index.ts";
import {
  adminCall,
  adminTarget,
  CliError,
  commandStart,
  type AdminTarget,
  type CommandIo,
} from "./admin-client.ts";
import { formatTable } from "./table.ts";

export const SNAPSHOT_ACTIONS = ["save", "restore", "list", "delete"] as const;
export type SnapshotAction = (typeof SNAPSHOT_ACTIONS)[number];

/** The flags of `cws snapshot`, for the command line's parser (-h/--help besides). */
export const SNAPSHOT_FLAGS = {
  url: { type: "string" },
  "admin-token": { type: "string" },
  json: { type: "boolean" },
} as const;

/** The values of SNAPSHOT_FLAGS as parsed. */
export interface SnapshotFlags {
  url?: string;
  "admin-token"?: string;
  json?: boolean;
  help?: boolean;
}

type Out = (text: string) => void;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const path = (name: string) => `/snapshots/${encodeURIComponent(name)}`;

async function save(target: AdminTarget, name: string, json: boolean, out: Out): Promise<void> {
  const info = await adminCall<SnapshotInfo>(target, "PUT", path(name));
  out(
    json
      ? `${JSON.stringify(info)}\n`
      : `${target.url}: saved snapshot ${info.name} (${info.objects} objects, ${kib(info.bytes)})\n`,
  );
}

async function restore(target: AdminTarget, name: string, json: boolean, out: Out): Promise<void> {
  const r = await adminCall<SnapshotRestored>(target, "POST", `${path(name)}/restore`);
  out(
    json
      ? `${JSON.stringify(r)}\n`
      : `${target.url}: restored snapshot ${r.snapshot.name} (saved ${r.snapshot.saved_at}, ${r.snapshot.objects} objects) in ${r.restore_ms.toFixed(1)} ms\n`,
  );
}

async function list(target: AdminTarget, json: boolean, out: Out): Promise<void> {
  const { items } = await adminCall<SnapshotList>(target, "GET", "/snapshots");
  if (json) return out(`${JSON.stringify(items, null, 2)}\n`);
  if (items.length === 0)
    return out(`no snapshot saved on ${target.url} (cws snapshot save NAME saves one)\n`);
  out(
    formatTable(
      [
        { title: "NAME", value: (i: SnapshotInfo) => i.name },
        { title: "SAVED AT", value: (i) => i.saved_at },
        { title: "OBJECTS", value: (i) => String(i.objects ?? "-"), right: true },
        { title: "SIZE", value: (i) => kib(i.bytes), right: true },
        { title: "SERVER", value: (i) => i.server_version ?? "-" },
      ],
      items,
    ),
  );
}

async function remove(target: AdminTarget, name: string, json: boolean, out: Out): Promise<void> {
  await adminCall(target, "DELETE", path(name));
  out(
    json ? `${JSON.stringify({ status: "deleted", name })}\n` : `${target.url}: deleted snapshot ${name}\n`,
  );
}

/**
 * `cws snapshot save|restore|delete NAME` and `cws snapshot list`, with the flags as the command
 * line parsed them (`error`: the parser's message of a bad flag), against a running server's
 * admin API (server/admin/snapshots.ts). Answers the exit status: 0, 1 when the server cannot be
 * reached or refuses, 2 for bad usage.
 */
export async function snapshot(
  action: string | undefined,
  name: string | undefined,
  parsed: { values: SnapshotFlags } | { error: string },
  io: CommandIo,
  help: string,
): Promise<number> {
  const start = commandStart(parsed, io, help);
  if (typeof start === "number") return start;
  const { values, usage } = start;
  const known = SNAPSHOT_ACTIONS.find((a) => a === action);
  if (!known) return usage(`snapshot needs one of ${SNAPSHOT_ACTIONS.join(", ")} (got '${action ?? ""}')`);
  if (known === "list" ? name !== undefined : name === undefined)
    return usage(known === "list" ? "snapshot list takes no name" : `snapshot ${known} needs a NAME`);
  const json = values.json ?? false;
  try {
    const target = adminTarget(values.url, values["admin-token"]);
    if (known === "save") await save(target, name!, json, io.out);
    else if (known === "restore") await restore(target, name!, json, io.out);
    else if (known === "delete") await remove(target, name!, json, io.out);
    else await list(target, json, io.out);
    return 0;
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    io.err(`cws: ${e.message}\n`);
    return 1;
  }
}
