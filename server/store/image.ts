import { DatabaseSync } from "node:sqlite";
import { FORMAT_VERSION, migrate } from "./tables.ts";

/**
 * Every row of the store (server/store/store.ts) as its tables hold them: documents, events and
 * key-values, secrets sealed as in the database. What a snapshot keeps of the store
 * (server/admin/snapshots.ts); `format` is the data format of the rows (tables.ts).
 */
export interface StoreImage {
  format: number;
  /** [seq, kind, uid, org, data] */
  docs: [number, string, string, string | null, string][];
  /** [id, kind, subject, data, meta] */
  events: [number, string, string, string, string][];
  /** [key, value] */
  kv: [string, string][];
}

/** The rows of the store's tables, in the order they were written. */
export function readImage(db: DatabaseSync): StoreImage {
  const rows = (sql: string) =>
    db
      .prepare(sql)
      .all()
      .map((r) => Object.values(r));
  return {
    format: FORMAT_VERSION,
    docs: rows("SELECT seq, kind, uid, org, data FROM docs ORDER BY seq") as StoreImage["docs"],
    events: rows("SELECT id, kind, subject, data, meta FROM events ORDER BY id") as StoreImage["events"],
    kv: rows("SELECT key, value FROM kv") as StoreImage["kv"],
  };
}

/** Replaces the rows of the store's tables with the image's (inside the caller's transaction). */
export function writeImage(db: DatabaseSync, image: StoreImage): void {
  db.exec("DELETE FROM docs; DELETE FROM events; DELETE FROM kv;");
  const doc = db.prepare("INSERT INTO docs (seq, kind, uid, org, data) VALUES (?, ?, ?, ?, ?)");
  for (const r of image.docs) doc.run(...r);
  const event = db.prepare("INSERT INTO events (id, kind, subject, data, meta) VALUES (?, ?, ?, ?, ?)");
  for (const r of image.events) event.run(...r);
  const kv = db.prepare("INSERT INTO kv (key, value) VALUES (?, ?)");
  for (const r of image.kv) kv.run(...r);
}

/**
 * The image in this server's data format: an image of an older format goes through the same
 * steps as a data dir of that format (tables.ts), in a database of its own in memory; a newer
 * format is refused with the message `refuse` gives.
 */
export function currentImage(image: StoreImage, refuse: (why: string) => Error): StoreImage {
  if (image.format === FORMAT_VERSION) return image;
  if (!Number.isInteger(image.format) || image.format < 1 || image.format > FORMAT_VERSION)
    throw refuse(`its data format is ${image.format}; this server reads formats 1 to ${FORMAT_VERSION}`);
  const db = new DatabaseSync(":memory:");
  try {
    migrate(db, 0, image.format);
    writeImage(db, image);
    migrate(db, image.format);
    return readImage(db);
  } finally {
    db.close();
  }
}
