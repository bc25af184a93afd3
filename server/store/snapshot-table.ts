import type { DatabaseSync, StatementSync } from "node:sqlite";

/** A saved snapshot's row: its name, when it was saved, and its JSON. */
export interface SnapshotRow {
  name: string;
  saved_at: string;
  data: string;
}

/** What a listing shows of a snapshot, read from its JSON by SQLite (the snapshot is not parsed here). */
export interface SnapshotSummary {
  name: string;
  saved_at: string;
  format: number | null;
  server_version: string | null;
  /** Documents (workloads, volumes, keys, templates, ...) of every org. */
  objects: number | null;
  bytes: number;
}

/**
 * The `snapshots` table of the store's database (data format 3, tables.ts): snapshots of the
 * whole server state by name (server/admin/snapshots.ts). A reset and a restore leave it alone.
 * Each write is committed at once (the caller commits the store's open group first).
 */
export class SnapshotTable {
  private readonly stmts: Record<"put" | "get" | "list" | "del", StatementSync>;

  constructor(db: DatabaseSync) {
    this.stmts = {
      put: db.prepare("INSERT OR REPLACE INTO snapshots (name, saved_at, data) VALUES (?, ?, ?)"),
      get: db.prepare("SELECT name, saved_at, data FROM snapshots WHERE name = ?"),
      list: db.prepare(
        `SELECT name, saved_at, json_extract(data, '$.format') AS format,
           json_extract(data, '$.server_version') AS server_version,
           json_array_length(data, '$.parts.store.docs') AS objects, length(data) AS bytes
         FROM snapshots ORDER BY name`,
      ),
      del: db.prepare("DELETE FROM snapshots WHERE name = ?"),
    };
  }

  put(row: SnapshotRow): void {
    this.stmts.put.run(row.name, row.saved_at, row.data);
  }

  get(name: string): SnapshotRow | undefined {
    return this.stmts.get.get(name) as SnapshotRow | undefined;
  }

  list(): SnapshotSummary[] {
    return this.stmts.list.all() as unknown as SnapshotSummary[];
  }

  /** Whether a snapshot of that name was there. */
  delete(name: string): boolean {
    return Number(this.stmts.del.run(name).changes) > 0;
  }
}
