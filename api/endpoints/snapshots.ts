import * as api from "../index.ts";
import type { Reason } from "../index.ts";
import { noContent, ok, endpointGroup } from "./common.ts";

const NOT_FOUND: Reason[] = ["SNAPSHOT_NOT_FOUND"];

/** Snapshots of the whole reference server state (under /admin; docs/reference-server.md, "Testing your code against it"). */
export const SNAPSHOTS = endpointGroup(
  "admin",
  {
    listSnapshots: {
      method: "GET",
      pattern: "/snapshots",
      summary: "The saved snapshots of the whole server state, by name",
      responses: ok(api.SnapshotList),
      reasons: [],
    },
    saveSnapshot: {
      method: "PUT",
      pattern: "/snapshots/:snapshot",
      summary:
        "Save the whole server state under a name (replacing a snapshot of that name): every org's resources, events, credits, faults, rules, run-time rate limits and inventory capacities",
      description:
        "Kept in the database: with --data-dir it survives a restart. Running sandboxes are saved as records; their environments are not (a restore brings them back in `error`).",
      responses: ok(api.SnapshotInfo),
      reasons: ["ADMIN_INVALID"],
    },
    restoreSnapshot: {
      method: "POST",
      pattern: "/snapshots/:snapshot/restore",
      summary: "Replace the whole server state with a snapshot's, at once",
      description:
        "Requests served meanwhile see the state before or the state after, never a mix. Every running sandbox is stopped; the snapshot's running or frozen sandboxes come back in `error` (reason SandboxNotRestored). A snapshot saved by a newer server is refused with SNAPSHOT_INCOMPATIBLE, and nothing changes.",
      responses: ok(api.SnapshotRestored),
      reasons: [...NOT_FOUND, "SNAPSHOT_INCOMPATIBLE"],
    },
    deleteSnapshot: {
      method: "DELETE",
      pattern: "/snapshots/:snapshot",
      summary: "Delete a snapshot",
      responses: noContent,
      reasons: NOT_FOUND,
    },
  },
  { prefix: "/admin", auth: "admin" },
);
