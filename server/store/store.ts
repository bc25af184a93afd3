import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type {
  SandboxTemplateRecord,
  SshKeyRecord,
  TemplateRecord,
  VolumeRecord,
  WorkloadRecord,
} from "./records.ts";
import { SecretBox } from "./secrets.ts";
import { Checkpointer } from "./checkpoint.ts";
import { DocTable, type Doc, type DocWriter } from "./doc-table.ts";
import { GroupCommit } from "./commit.ts";
import { PendingWrites, type WriteStatements } from "./writes.ts";
import { EventIndex, LAST_SEQ_KEY, openSchema } from "./tables.ts";
import { readImage, writeImage, type StoreImage } from "./image.ts";
import { SnapshotTable } from "./snapshot-table.ts";
import type { Seed } from "../seed/schema.ts";

/**
 * State of the server in node:sqlite, with an in-memory copy of every document for reads
 * (doc-table.ts).
 *
 * Group commit (commit.ts): the writes made during one event-loop turn wait in memory
 * (writes.ts) and go to the database together at the end of the turn, in one SQL
 * transaction and one commit (WAL journal), whatever number of requests made them. Nothing
 * that depends on a write may leave the server before its commit: `dirty` says whether
 * uncommitted writes exist, `durable()` resolves when everything written so far is committed,
 * and the HTTP layer holds every reply until then (server/http/durable.ts). So a server killed
 * at any moment restarts with everything it acknowledged. Without a data dir the database is
 * `:memory:` — the same code path. Tables: tables.ts; checkpoints: checkpoint.ts.
 */

export interface StoredEvent<T> {
  id: number;
  record: T;
  /** Internal data kept beside the wire record (e.g. the revision a workload event belongs to). */
  meta: Record<string, unknown>;
}

export { DocTable } from "./doc-table.ts";

export class Store implements DocWriter {
  readonly db: DatabaseSync;
  readonly workloads: DocTable<WorkloadRecord>;
  readonly volumes: DocTable<VolumeRecord>;
  readonly sshKeys: DocTable<SshKeyRecord>;
  readonly templates: DocTable<TemplateRecord>;
  readonly sandboxTemplates: DocTable<SandboxTemplateRecord>;
  /** Saved snapshots of the whole state (server/admin/snapshots.ts). */
  readonly snapshots: SnapshotTable;
  private readonly tables: Map<string, DocTable<Doc>>;
  private seq = 0;
  private txDepth = 0;
  private readonly commits: GroupCommit;
  private readonly stmts: Record<string, StatementSync>;
  private readonly secrets: SecretBox;
  private readonly eventIds = new EventIndex();
  private readonly pending = new PendingWrites();
  /** The last event id given out (ids are never reused, as with AUTOINCREMENT). */
  private lastEventId = 0;
  private readonly checkpointer: Checkpointer | undefined;

  /**
   * dataDir is created 0700, the database 0600 (SQLite gives its -wal and -shm files the
   * database's mode). Secrets are encrypted with the key of `keyFile` (default
   * dataDir/cws.key; see secrets.ts).
   */
  constructor(dataDir?: string, opts: { keyFile?: string } = {}) {
    let file = ":memory:";
    if (dataDir) {
      if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      file = join(dataDir, "cws.sqlite");
      closeSync(openSync(file, "a", 0o600));
      for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
    }
    this.secrets = SecretBox.open(opts.keyFile ?? (dataDir ? join(dataDir, "cws.key") : undefined));
    this.db = new DatabaseSync(file);
    try {
      openSchema(this.db, file);
    } catch (e) {
      this.db.close();
      throw e;
    }
    if (dataDir) this.checkpointer = new Checkpointer(this.db, file);
    const writes: WriteStatements = {
      upsert: this.db.prepare(
        "INSERT OR REPLACE INTO docs (seq, kind, uid, org, data) VALUES (?, ?, ?, ?, ?)",
      ),
      del: this.db.prepare("DELETE FROM docs WHERE seq = ?"),
      addEvent: this.db.prepare("INSERT INTO events (id, kind, subject, data, meta) VALUES (?, ?, ?, ?, ?)"),
      kvSet: this.db.prepare("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)"),
      kvDel: this.db.prepare("DELETE FROM kv WHERE key = ?"),
    };
    this.commits = new GroupCommit(
      this.db,
      () => this.pending.apply(this.db, writes, (doc) => this.secrets.stringify(doc)),
      () => this.checkpointer?.afterCommit(),
    );
    this.stmts = {
      event: this.db.prepare("SELECT data, meta FROM events WHERE id = ?"),
      kvGet: this.db.prepare("SELECT value FROM kv WHERE key = ?"),
    };
    this.snapshots = new SnapshotTable(this.db);
    this.workloads = new DocTable(this, "workload");
    this.volumes = new DocTable(this, "volume");
    this.sshKeys = new DocTable(this, "ssh_key");
    this.templates = new DocTable(this, "template");
    this.sandboxTemplates = new DocTable(this, "sandbox_template");
    this.tables = new Map<string, DocTable<Doc>>([
      ["workload", this.workloads as unknown as DocTable<Doc>],
      ["volume", this.volumes as unknown as DocTable<Doc>],
      ["ssh_key", this.sshKeys as unknown as DocTable<Doc>],
      ["template", this.templates as unknown as DocTable<Doc>],
      ["sandbox_template", this.sandboxTemplates as unknown as DocTable<Doc>],
    ]);
    this.loadAll();
    // Whatever loading rewrote is on disk before the constructor returns.
    this.commits.flush();
    if (this.commits.failed) throw this.commits.failed;
  }

  /** The table of another kind of document, for an extension module (documents with uid and org). */
  collection<T extends Doc>(kind: string): DocTable<T> {
    let c = this.tables.get(kind);
    if (!c) {
      c = new DocTable<Doc>(this, kind);
      this.tables.set(kind, c);
      for (const row of this.unclaimed.get(kind) ?? []) c.load(row.seq, row.doc);
      this.unclaimed.delete(kind);
    }
    return c as unknown as DocTable<T>;
  }

  /** Documents of kinds no table holds yet (an extension's), read at startup. */
  private readonly unclaimed = new Map<string, { seq: number; doc: Doc }[]>();

  /**
   * Reads the documents and the event index into memory: from the database (at startup), or
   * from an image just written to it (restoreImage), which spares reading back what is at hand.
   */
  private loadAll(image?: StoreImage): void {
    const plain: { kind: string; seq: number; doc: Doc }[] = [];
    const load = (seq: number, kind: string, data: string) => {
      this.seq = Math.max(this.seq, seq);
      const doc = this.secrets.parse<Doc>(data);
      const c = this.tables.get(kind);
      if (c) c.load(seq, doc);
      else {
        let list = this.unclaimed.get(kind);
        if (!list) this.unclaimed.set(kind, (list = []));
        list.push({ seq, doc });
      }
      if (SecretBox.hasPlainSecret(data)) plain.push({ kind, seq, doc });
    };
    if (image) {
      for (const [seq, kind, , , data] of image.docs) load(seq, kind, data);
      for (const [id, kind, subject] of image.events) this.eventIds.add(kind, subject, id);
      // Ids stay above every id given out before (the events table's AUTOINCREMENT keeps them too).
      this.lastEventId = Math.max(this.lastEventId, image.events.at(-1)?.[0] ?? 0);
    } else {
      const rows = this.db.prepare("SELECT kind, seq, data FROM docs ORDER BY seq").iterate() as Iterable<{
        kind: string;
        seq: number;
        data: string;
      }>;
      for (const row of rows) load(row.seq, row.kind, row.data);
      this.eventIds.load(this.db);
      const last = this.db
        .prepare(
          "SELECT max(coalesce((SELECT max(id) FROM events), 0), coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)) AS id",
        )
        .get() as { id: number };
      this.lastEventId = last.id;
    }
    // Secrets a server before encryption wrote in plain text are sealed now.
    for (const p of plain) this.writeDoc(p.kind, p.doc.uid, p.doc.org, p.seq, p.doc);
    const seed = this.stmts.kvGet!.get("seed") as { value: string } | undefined;
    if (seed && SecretBox.hasPlainSecret(seed.value)) this.kvSet("seed", this.secrets.parse(seed.value));
    this.seq = Math.max(this.seq, this.kvGet<number>(LAST_SEQ_KEY) ?? 0);
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /** @internal */
  writeDoc(kind: string, uid: string, org: string | null, seq: number, doc: unknown): void {
    this.open();
    this.pending.putDoc(seq, { kind, uid, org, doc });
  }

  /** @internal */
  deleteDoc(seq: number): void {
    this.open();
    this.pending.deleteDoc(seq);
    // The highest position is kept by its document or, once that is deleted, here: it is never
    // handed out again (a lower one's delete changes nothing of it).
    if (seq === this.seq) this.kvSet(LAST_SEQ_KEY, seq);
  }

  /**
   * Runs fn atomically: its writes all land or, when it throws, none does (nested calls join
   * the outer one). fn must be synchronous. Durable at the group's commit: see durable(). The
   * in-memory documents are not restored: a document fn changed keeps the change in memory,
   * and is saved so when something else writes it in the same group.
   */
  transaction<R>(fn: () => R): R {
    if (this.txDepth > 0) return fn();
    this.txDepth++;
    this.pending.begin();
    this.eventIds.begin();
    try {
      const out = fn();
      this.txDepth--;
      this.pending.keep();
      this.eventIds.keep();
      return out;
    } catch (e) {
      this.txDepth--;
      this.pending.rollback();
      this.eventIds.rollback();
      throw e;
    }
  }

  /** Whether writes exist that are not committed yet (or a commit failed): see GroupCommit. */
  get dirty(): boolean {
    return this.commits.dirty;
  }

  /** Resolves when every write made so far is committed; rejects after a failed commit. */
  durable(): Promise<void> {
    return this.commits.durable();
  }

  /** Commits the writes of this turn now instead of at its end. */
  flush(): void {
    this.commits.flush();
  }

  private open(): void {
    this.commits.open();
  }

  addEvent<T>(kind: string, subject: string, record: T, meta: Record<string, unknown> = {}): StoredEvent<T> {
    this.open();
    const id = ++this.lastEventId;
    this.pending.addEvent([id, kind, subject, this.secrets.stringify(record), JSON.stringify(meta)]);
    this.eventIds.add(kind, subject, id);
    return { id, record, meta };
  }

  /** Events of a subject after `afterId`, oldest first, at most `limit`. */
  events<T>(kind: string, subject: string, afterId = 0, limit = 1_000_000): StoredEvent<T>[] {
    const out: StoredEvent<T>[] = [];
    for (const id of this.eventIds.after(kind, subject, afterId, limit)) {
      const r = this.pending.event(id) ?? (this.stmts.event!.get(id) as { data: string; meta: string });
      out.push({
        id,
        record: this.secrets.parse<T>(r.data),
        meta: JSON.parse(r.meta) as Record<string, unknown>,
      });
    }
    return out;
  }

  eventExists(kind: string, subject: string, id: number): boolean {
    return this.eventIds.has(kind, subject, id);
  }

  kvGet<T>(key: string): T | undefined {
    const pending = this.pending.kvValue(key);
    if (pending !== undefined) return pending === null ? undefined : this.secrets.parse<T>(pending);
    const row = this.stmts.kvGet!.get(key) as { value: string } | undefined;
    return row ? this.secrets.parse<T>(row.value) : undefined;
  }

  kvSet(key: string, value: unknown): void {
    this.open();
    this.pending.setKv(key, this.secrets.stringify(value));
  }

  kvDelete(key: string): void {
    this.open();
    this.pending.setKv(key, null);
  }

  private seedCache: Seed | undefined;

  /** The seed this database was initialised with. */
  get seed(): Seed {
    this.seedCache ??= this.kvGet<Seed>("seed");
    if (!this.seedCache) throw new Error("store is not seeded");
    return this.seedCache;
  }

  setSeed(seed: Seed): void {
    this.kvSet("seed", seed);
    this.seedCache = seed;
  }

  isSeeded(): boolean {
    return this.seedCache !== undefined || this.kvGet("seed") !== undefined;
  }

  /** Drops everything (documents, events, key-values). */
  wipe(): void {
    this.open();
    this.pending.wipe();
    for (const c of this.tables.values()) c.clear();
    this.unclaimed.clear();
    this.eventIds.clear();
    this.seq = 0;
    this.seedCache = undefined;
  }

  /** Every row of the store as committed, after committing what is pending (image.ts). */
  image(): StoreImage {
    this.flush();
    if (this.commits.failed) throw this.commits.failed;
    return readImage(this.db);
  }

  /**
   * Replaces everything (documents, events, key-values) with an image of this data format, in
   * one commit, then reads it back into memory as at startup. Synchronous: no request sees a
   * part of the old state beside a part of the new. Event ids given out later stay above every
   * id given out before (they are never reused).
   */
  restoreImage(image: StoreImage): void {
    this.flush();
    if (this.commits.failed) throw this.commits.failed;
    this.db.exec("BEGIN");
    try {
      writeImage(this.db, image);
      this.db.exec("COMMIT");
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    }
    for (const c of this.tables.values()) c.clear();
    this.unclaimed.clear();
    this.eventIds.clear();
    this.seq = 0;
    this.seedCache = undefined;
    this.loadAll(image);
  }

  /** Commits what is pending, then closes the database. */
  close(): void {
    if (!this.db.isOpen) return;
    this.flush();
    this.checkpointer?.close();
    this.db.close();
  }
}
