import { SNAPSHOT_NAME, SNAPSHOT_NAME_RULE, type SnapshotInfo } from "../../api/index.ts";
import { ApiError } from "../http/errors.ts";
import { currentImage, type StoreImage } from "../store/image.ts";
import type { Store } from "../store/store.ts";
import type { StatePart } from "./state.ts";

/**
 * The format of a snapshot's JSON. A server restores snapshots of its format and older ones (a
 * part an older snapshot lacks is reset to the seed; the store's rows are brought to this data
 * format by the data dir's own steps, store/image.ts) and refuses newer ones with
 * SNAPSHOT_INCOMPATIBLE. A change of what a part saves that an older server cannot read raises it.
 */
export const SNAPSHOT_FORMAT = 1;

/** A snapshot as stored: the parts of the state (server/admin/state.ts) by name. */
export interface SnapshotDoc {
  format: number;
  server_version: string;
  saved_at: string;
  parts: Record<string, unknown>;
}

/** A snapshot read and checked, ready to restore. */
export interface LoadedSnapshot {
  info: SnapshotInfo;
  parts: Record<string, unknown>;
}

export interface SnapshotDeps {
  store: Store;
  parts: readonly StatePart[];
  serverVersion: string;
  now: () => string;
}

/**
 * Snapshots of the whole server state, by name, in the store's `snapshots` table
 * (store/snapshot-table.ts): saved, listed, deleted, and read back for a restore (AdminService).
 */
export class Snapshots {
  private readonly d: SnapshotDeps;
  /**
   * The snapshots saved or restored by this process, as read (a restore between tests need not
   * parse the same JSON again); the database stays the reference: dropped on delete and replaced
   * on save. Restoring never changes what it holds (the parts copy what they take).
   */
  private readonly loaded = new Map<string, LoadedSnapshot>();

  constructor(deps: SnapshotDeps) {
    this.d = deps;
  }

  /** 400 ADMIN_INVALID unless `name` is a snapshot name. */
  static checkName(name: string): string {
    if (!SNAPSHOT_NAME.test(name))
      throw new ApiError("ADMIN_INVALID", `snapshot name must be ${SNAPSHOT_NAME_RULE} (got '${name}')`);
    return name;
  }

  /** Saves every part of the state under `name`, replacing a snapshot of that name; committed on return. */
  save(name: string): SnapshotInfo {
    Snapshots.checkName(name);
    const doc: SnapshotDoc = {
      format: SNAPSHOT_FORMAT,
      server_version: this.d.serverVersion,
      saved_at: this.d.now(),
      parts: Object.fromEntries(this.d.parts.map((p) => [p.name, p.save()])),
    };
    const data = JSON.stringify(doc);
    this.d.store.snapshots.put({ name, saved_at: doc.saved_at, data });
    const info = infoOf(name, doc, data.length);
    this.loaded.set(name, { info, parts: doc.parts });
    return info;
  }

  list(): SnapshotInfo[] {
    return this.d.store.snapshots.list();
  }

  /** 404 SNAPSHOT_NOT_FOUND when there is none of that name. */
  delete(name: string): void {
    this.loaded.delete(name);
    if (!this.d.store.snapshots.delete(name)) throw notFound(name);
  }

  /**
   * The snapshot `name`, read and brought to this server's formats: 404 SNAPSHOT_NOT_FOUND, or
   * 409 SNAPSHOT_INCOMPATIBLE for one this server cannot restore (nothing is changed by either).
   */
  load(name: string): LoadedSnapshot {
    const known = this.loaded.get(name);
    if (known) return known;
    const row = SNAPSHOT_NAME.test(name) ? this.d.store.snapshots.get(name) : undefined;
    if (!row) throw notFound(name);
    const refuse = (why: string) =>
      new ApiError(
        "SNAPSHOT_INCOMPATIBLE",
        `snapshot ${name} cannot be restored by this server (cws-reference ${this.d.serverVersion}): ${why}. ` +
          "Restore it with the server that saved it or a newer one, or save the state again with this one.",
      );
    let doc: SnapshotDoc;
    try {
      doc = JSON.parse(row.data) as SnapshotDoc;
    } catch {
      throw refuse("it is not valid JSON");
    }
    if (!Number.isInteger(doc.format) || doc.format < 1 || typeof doc.parts !== "object" || !doc.parts)
      throw refuse("it has no snapshot format");
    if (doc.format > SNAPSHOT_FORMAT)
      throw refuse(
        `it was saved by cws-reference ${doc.server_version} in snapshot format ${doc.format}; this server restores formats up to ${SNAPSHOT_FORMAT}`,
      );
    const parts = { ...doc.parts };
    if (parts.store) parts.store = currentImage(parts.store as StoreImage, refuse);
    const loaded = { info: infoOf(name, doc, row.data.length), parts };
    this.loaded.set(name, loaded);
    return loaded;
  }
}

function notFound(name: string): ApiError {
  return new ApiError(
    "SNAPSHOT_NOT_FOUND",
    `no snapshot named ${name} (cws snapshot list shows those saved)`,
  );
}

function infoOf(name: string, doc: SnapshotDoc, bytes: number): SnapshotInfo {
  const store = doc.parts.store as StoreImage | undefined;
  return {
    name,
    saved_at: doc.saved_at,
    format: doc.format,
    server_version: doc.server_version,
    objects: store?.docs.length ?? null,
    bytes,
  };
}
