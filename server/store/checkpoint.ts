import { statSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";

/**
 * WAL checkpoints off the event loop. A commit appends to the WAL file (durable against a
 * killed process, see store.ts); a checkpoint copies the WAL into the database file and syncs
 * both, which can take tens of milliseconds on a busy disk. SQLite would run it inside the
 * commit that crosses its threshold, stopping every request meanwhile; here the main
 * connection never checkpoints, and a worker thread with its own connection runs PASSIVE
 * checkpoints (they never wait for, nor block, the writer) once the WAL has grown past
 * WAL_LIMIT, at most one at a time. Under a steady stream of commits the WAL is never found
 * fully copied when a write begins, so SQLite never starts it over and it keeps growing: past
 * WAL_TRUNCATE the worker runs a TRUNCATE checkpoint instead, which holds the writer back for
 * as long as it takes to copy what the last passes left over (short) and empties the file.
 * The worker starts at the first checkpoint, so a small server never has one. Should it fail,
 * the main connection checkpoints again itself.
 */
const WAL_LIMIT = 4 * 1024 * 1024;
const WAL_TRUNCATE = 64 * 1024 * 1024;
/** How often, at most, the WAL's size is looked at (only after commits). */
const CHECK_EVERY_MS = 100;

const WORKER = `
const { DatabaseSync } = require("node:sqlite");
const { parentPort, workerData } = require("node:worker_threads");
const db = new DatabaseSync(workerData.file);
db.exec("PRAGMA busy_timeout = 5000");
const checkpoint = {
  PASSIVE: db.prepare("PRAGMA wal_checkpoint(PASSIVE)"),
  TRUNCATE: db.prepare("PRAGMA wal_checkpoint(TRUNCATE)"),
};
parentPort.on("message", (m) => {
  if (m === "close") {
    db.close();
    parentPort.close();
    return;
  }
  checkpoint[m].get();
  parentPort.postMessage("done");
});
`;

export class Checkpointer {
  private readonly db: DatabaseSync;
  private readonly wal: string;
  private readonly file: string;
  private worker: Worker | undefined;
  private running = false;
  private failed = false;
  private lastCheck = 0;

  constructor(db: DatabaseSync, file: string) {
    this.db = db;
    this.file = file;
    this.wal = `${file}-wal`;
    db.exec("PRAGMA wal_autocheckpoint = 0");
  }

  /** Called after each commit: starts a checkpoint when the WAL is past its limit. */
  afterCommit(): void {
    if (this.running || this.failed) return;
    const now = performance.now();
    if (now - this.lastCheck < CHECK_EVERY_MS) return;
    this.lastCheck = now;
    let size: number;
    try {
      size = statSync(this.wal).size;
    } catch {
      return;
    }
    if (size < WAL_LIMIT) return;
    this.running = true;
    (this.worker ??= this.start()).postMessage(size < WAL_TRUNCATE ? "PASSIVE" : "TRUNCATE");
  }

  private start(): Worker {
    const w = new Worker(WORKER, { eval: true, workerData: { file: this.file } });
    w.unref();
    w.on("message", () => {
      this.running = false;
    });
    w.on("error", () => this.fallBack());
    w.on("exit", () => {
      if (this.worker === w) this.fallBack();
    });
    return w;
  }

  /** The worker is gone: SQLite checkpoints in the commits again (its default threshold). */
  private fallBack(): void {
    this.failed = true;
    this.worker = undefined;
    if (this.db.isOpen) this.db.exec("PRAGMA wal_autocheckpoint = 1000");
  }

  /** Lets the worker close its connection and end (a checkpoint under way finishes first). */
  close(): void {
    const w = this.worker;
    this.worker = undefined;
    w?.postMessage("close");
  }
}
