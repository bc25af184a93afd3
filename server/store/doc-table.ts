/**
 * The table of one kind of document (workloads, volumes, ...): the documents in memory, by UID
 * and by org, so every read of the server is served from here; every change goes to the store's
 * database (the rows of that kind in its `docs` table) through `put` and `remove`.
 */

/** What a table holds: documents with a UID, of an org (null: global, e.g. platform templates). */
export interface Doc {
  uid: string;
  org: string | null;
}

/** Where a table saves its documents (the Store). */
export interface DocWriter {
  nextSeq(): number;
  writeDoc(kind: string, uid: string, org: string | null, seq: number, doc: unknown): void;
  deleteDoc(seq: number): void;
}

const GLOBAL = "";

export class DocTable<T extends Doc> {
  private readonly kind: string;
  private readonly store: DocWriter;
  private readonly items = new Map<string, { seq: number; doc: T }>();
  private readonly byOrg = new Map<string, T[]>();

  constructor(store: DocWriter, kind: string) {
    this.store = store;
    this.kind = kind;
  }

  /** @internal loads a row read at startup. */
  load(seq: number, doc: T): void {
    this.items.set(doc.uid, { seq, doc });
    this.orgList(doc.org).push(doc);
  }

  /** @internal sorts the per-org lists after a load. */
  sortAll(): void {
    for (const list of this.byOrg.values()) list.sort((a, b) => this.seqOf(a.uid)! - this.seqOf(b.uid)!);
  }

  clear(): void {
    this.items.clear();
    this.byOrg.clear();
  }

  private orgList(org: string | null): T[] {
    const key = org ?? GLOBAL;
    let list = this.byOrg.get(key);
    if (!list) this.byOrg.set(key, (list = []));
    return list;
  }

  get(uid: string): T | undefined {
    return this.items.get(uid)?.doc;
  }

  /** The document if it belongs to org (or is global and `globalToo`). */
  getIn(org: string, uid: string, globalToo = false): T | undefined {
    const doc = this.get(uid);
    if (!doc) return undefined;
    if (doc.org === org || (globalToo && doc.org === null)) return doc;
    return undefined;
  }

  /** Creation position of a document (what list cursors name). */
  seqOf(uid: string): number | undefined {
    return this.items.get(uid)?.seq;
  }

  /** Inserts or rewrites a document (saved at the store's next commit). Call after every mutation of a document. */
  put(doc: T): T {
    const existing = this.items.get(doc.uid);
    if (existing) {
      if (existing.doc !== doc) {
        const list = this.orgList(existing.doc.org);
        const i = list.indexOf(existing.doc);
        if (i >= 0) list[i] = doc;
        existing.doc = doc;
      }
      this.store.writeDoc(this.kind, doc.uid, doc.org, existing.seq, doc);
    } else {
      const seq = this.store.nextSeq();
      this.items.set(doc.uid, { seq, doc });
      this.orgList(doc.org).push(doc);
      this.store.writeDoc(this.kind, doc.uid, doc.org, seq, doc);
    }
    return doc;
  }

  remove(uid: string): void {
    const existing = this.items.get(uid);
    if (!existing) return;
    this.items.delete(uid);
    const list = this.orgList(existing.doc.org);
    const i = list.indexOf(existing.doc);
    if (i >= 0) list.splice(i, 1);
    this.store.deleteDoc(existing.seq);
  }

  /** Documents of org in creation order (`globalToo`: platform documents first-class, merged by creation order). */
  list(org: string, globalToo = false): readonly T[] {
    const own = this.byOrg.get(org) ?? [];
    if (!globalToo) return own;
    const global = this.byOrg.get(GLOBAL) ?? [];
    if (global.length === 0) return own;
    return [...global, ...own].sort((a, b) => this.seqOf(a.uid)! - this.seqOf(b.uid)!);
  }

  all(): IterableIterator<T> {
    return [...this.items.values()].map((v) => v.doc)[Symbol.iterator]();
  }

  get size(): number {
    return this.items.size;
  }
}
