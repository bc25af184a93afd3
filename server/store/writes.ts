import type { StatementSync } from "node:sqlite";

/**
 * The writes of the store's open group (server/store/store.ts), held in memory until the group's
 * commit, when GroupCommit (commit.ts) has them written in one SQL transaction
 * (`apply`). Writing them together, rather than each where it is made, spares the SQL
 * savepoints a transaction would need and keeps SQLite's work in one tight run.
 *
 * A document is serialised at the commit, as it is then in memory (written twice in a group,
 * it is written once). Reads that go to the database (events, key-values) look here first.
 * A transaction takes its writes back when it fails: `begin`, then `keep` or `rollback`.
 */

export interface WriteStatements {
  /** (seq, kind, uid, org, data) */
  upsert: StatementSync;
  /** (seq) */
  del: StatementSync;
  /** (id, kind, subject, data, meta) */
  addEvent: StatementSync;
  /** (key, value) */
  kvSet: StatementSync;
  /** (key) */
  kvDel: StatementSync;
}

interface DocWrite {
  kind: string;
  uid: string;
  org: string | null;
  doc: unknown;
}

type EventWrite = [id: number, kind: string, subject: string, data: string, meta: string];

export class PendingWrites {
  /** By creation position: the document to write, or null to delete its row. */
  private readonly docs = new Map<number, DocWrite | null>();
  private readonly events: EventWrite[] = [];
  /** Position in `events` by event id. */
  private readonly eventAt = new Map<number, number>();
  /** Serialised value, or null to delete the key. */
  private readonly kv = new Map<string, string | null>();
  /** Everything was dropped in this group: the database's rows are gone but for what follows. */
  private wiped = false;
  /** While a transaction runs: how to take each of its writes back, and where the lists stood. */
  private undo: (() => void)[] | undefined;
  private eventsMark = 0;

  putDoc(seq: number, write: DocWrite): void {
    this.remember(this.docs, seq);
    this.docs.set(seq, write);
  }

  deleteDoc(seq: number): void {
    this.remember(this.docs, seq);
    this.docs.set(seq, null);
  }

  addEvent(write: EventWrite): void {
    this.eventAt.set(write[0], this.events.length);
    this.events.push(write);
  }

  /** An event written in this group: its data and meta. */
  event(id: number): { data: string; meta: string } | undefined {
    const i = this.eventAt.get(id);
    if (i === undefined) return undefined;
    const e = this.events[i]!;
    return { data: e[3], meta: e[4] };
  }

  setKv(key: string, value: string | null): void {
    this.remember(this.kv, key);
    this.kv.set(key, value);
  }

  /** A key written in this group: its value, null when deleted, undefined when not written. */
  kvValue(key: string): string | null | undefined {
    const v = this.kv.get(key);
    if (v !== undefined) return v;
    return this.wiped ? null : undefined;
  }

  /** Drops everything, rows of earlier groups included (cannot be taken back). */
  wipe(): void {
    this.clear();
    this.wiped = true;
    if (this.undo) this.undo = [];
    this.eventsMark = 0;
  }

  begin(): void {
    this.undo = [];
    this.eventsMark = this.events.length;
  }

  keep(): void {
    this.undo = undefined;
  }

  /** Takes back the writes made since `begin`. */
  rollback(): void {
    const undo = this.undo ?? [];
    this.undo = undefined;
    for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
    for (const e of this.events.splice(this.eventsMark)) this.eventAt.delete(e[0]);
  }

  /** Records how to restore key's entry when a transaction is taken back. */
  private remember<K, V>(map: Map<K, V>, key: K): void {
    if (!this.undo) return;
    if (map.has(key)) {
      const before = map.get(key) as V;
      this.undo.push(() => map.set(key, before));
    } else this.undo.push(() => map.delete(key));
  }

  /** Writes everything to the database (inside the group's SQL transaction) and forgets it. */
  apply(db: { exec(sql: string): void }, stmts: WriteStatements, serialise: (doc: unknown) => string): void {
    try {
      if (this.wiped) db.exec("DELETE FROM docs; DELETE FROM events; DELETE FROM kv;");
      for (const [seq, w] of this.docs) {
        if (w) stmts.upsert.run(seq, w.kind, w.uid, w.org, serialise(w.doc));
        else stmts.del.run(seq);
      }
      for (const e of this.events) stmts.addEvent.run(...e);
      for (const [key, value] of this.kv) {
        if (value === null) stmts.kvDel.run(key);
        else stmts.kvSet.run(key, value);
      }
    } finally {
      this.clear();
    }
  }

  private clear(): void {
    this.docs.clear();
    this.events.length = 0;
    this.eventAt.clear();
    this.kv.clear();
    this.wiped = false;
  }
}
