import type { DatabaseSync } from "node:sqlite";

/**
 * The tables of the store (server/store/store.ts), the data dir's format version and the steps
 * between versions, and what replaces an SQL index.
 *
 * The format version is `PRAGMA user_version` of cws.sqlite. Format 1: documents are keyed by
 * their creation position (`seq`, the rowid), and the events of a subject are found through an
 * in-memory index (EventIndex) instead of an SQL one, so that a write appends to its table
 * rather than touching a page of an index at a random place (UIDs are random): a group commit
 * writes a few pages, not one per document. Format 2: the highest creation position handed out
 * is kept by its document or, once that is deleted, by the key-value `last_seq`, so that no
 * position is used twice (a list cursor names a position); format 1 kept a row per deleted
 * document for that (`gone`), which grew without end. Format 3: the `snapshots` table holds the
 * snapshots of the whole state (server/admin/snapshots.ts), which a reset leaves alone. Older formats are converted on open (STEPS). A database of a newer
 * format is refused before anything in it is touched.
 */
export const FORMAT_VERSION = 3;

/** The key-value of the highest creation position handed out (format 2). */
export const LAST_SEQ_KEY = "last_seq";

const TABLES = `
  CREATE TABLE IF NOT EXISTS docs (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, uid TEXT NOT NULL, org TEXT, data TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, subject TEXT NOT NULL, data TEXT NOT NULL, meta TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/**
 * STEPS[n] brings a database of format n to format n + 1. A new format adds one step here; a
 * step may rewrite tables and documents alike. All the steps a database needs run in one
 * transaction: a failure leaves it as it was.
 */
const STEPS: Record<number, (db: DatabaseSync) => void> = {
  0: (db) => {
    // An empty file (a new data dir) is format 0 with no tables: creating them is the step.
    const hasDocs = db
      .prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'docs'")
      .get();
    if (hasDocs) db.exec("ALTER TABLE docs RENAME TO docs_layout0; DROP INDEX IF EXISTS events_subject;");
    db.exec(TABLES);
    if (hasDocs)
      db.exec(`
        INSERT INTO docs (seq, kind, uid, org, data) SELECT seq, kind, uid, org, data FROM docs_layout0 ORDER BY seq;
        DROP TABLE docs_layout0;
      `);
  },
  1: (db) => {
    // The highest position of a deleted document is all that is kept of the gone rows.
    const hasGone = db
      .prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'gone'")
      .get();
    if (!hasGone) return;
    db.exec(`
      INSERT OR REPLACE INTO kv (key, value) SELECT '${LAST_SEQ_KEY}', CAST(max(seq) AS TEXT) FROM gone HAVING count(*) > 0;
      DROP TABLE gone;
    `);
  },
  2: (db) => {
    db.exec(
      "CREATE TABLE IF NOT EXISTS snapshots (name TEXT PRIMARY KEY, saved_at TEXT NOT NULL, data TEXT NOT NULL)",
    );
  },
};

/** Runs the steps that bring tables of format `from` to format `to` (inside the caller's transaction). */
export function migrate(db: DatabaseSync, from: number, to = FORMAT_VERSION): void {
  for (let v = from; v < to; v++) STEPS[v]!(db);
}

/**
 * Refuses a newer format (nothing written yet), sets the journal up and brings the tables to
 * FORMAT_VERSION. `file` names the database in errors.
 */
export function openSchema(db: DatabaseSync, file = ":memory:"): void {
  const { user_version: format } = db.prepare("PRAGMA user_version").get() as { user_version: number };
  if (format > FORMAT_VERSION)
    throw new Error(
      `${file} was written by a newer reference server (data format ${format}; this server reads formats up to ${FORMAT_VERSION}). ` +
        "Nothing in it was changed: start a newer server on it, or use another --data-dir.",
    );
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = 5000;
  `);
  if (format === FORMAT_VERSION) return;
  db.exec("BEGIN");
  try {
    migrate(db, format);
    db.exec(`PRAGMA user_version = ${FORMAT_VERSION}`);
    db.exec("COMMIT");
  } catch (e) {
    db.exec("ROLLBACK");
    throw new Error(
      `cannot bring ${file} from data format ${format} to ${FORMAT_VERSION}: ${(e as Error).message}`,
    );
  }
}

/**
 * Event ids by kind and subject, ascending (ids only grow). A transaction that rolls back
 * takes its ids out again: `begin()` before it, then `keep()` or `rollback()`.
 */
export class EventIndex {
  private readonly bySubject = new Map<string, Map<string, number[]>>();
  /** While a transaction is open (`tracking`): the lists that got an id in it, in order. */
  private readonly added: number[][] = [];
  private tracking = false;

  load(db: DatabaseSync): void {
    const rows = db.prepare("SELECT id, kind, subject FROM events ORDER BY id").iterate() as Iterable<{
      id: number;
      kind: string;
      subject: string;
    }>;
    for (const r of rows) this.list(r.kind, r.subject).push(r.id);
  }

  private list(kind: string, subject: string): number[] {
    let subjects = this.bySubject.get(kind);
    if (!subjects) this.bySubject.set(kind, (subjects = new Map()));
    let ids = subjects.get(subject);
    if (!ids) subjects.set(subject, (ids = []));
    return ids;
  }

  add(kind: string, subject: string, id: number): void {
    const ids = this.list(kind, subject);
    ids.push(id);
    if (this.tracking) this.added.push(ids);
  }

  begin(): void {
    this.tracking = true;
  }

  keep(): void {
    this.tracking = false;
    this.added.length = 0;
  }

  /** Forgets the ids added since `begin`. */
  rollback(): void {
    for (let i = this.added.length; i > 0; i--) this.added[i - 1]!.pop();
    this.keep();
  }

  /** Ids of the subject greater than afterId, at most limit. */
  after(kind: string, subject: string, afterId: number, limit: number): number[] {
    const ids = this.bySubject.get(kind)?.get(subject);
    if (!ids) return [];
    const from = firstAbove(ids, afterId);
    return ids.slice(from, from + limit);
  }

  has(kind: string, subject: string, id: number): boolean {
    const ids = this.bySubject.get(kind)?.get(subject);
    if (!ids) return false;
    const i = firstAbove(ids, id - 1);
    return ids[i] === id;
  }

  clear(): void {
    this.bySubject.clear();
    this.keep();
  }
}

/** Index of the first element of the ascending list greater than x (length when none). */
function firstAbove(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
