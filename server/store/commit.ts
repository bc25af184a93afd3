import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * Group commit for the store (server/store/store.ts): the first write of an event-loop turn opens a
 * group; at the end of that turn (setImmediate) the group's writes (kept in memory meanwhile,
 * writes.ts) go to the database in one SQL transaction and one commit. `dirty` says
 * whether uncommitted writes exist; `durable()` resolves when everything written so far is
 * committed. A failed commit is final: `durable()` rejects from then on.
 */

/**
 * How long a group stays open before its commit: $CWS_COMMIT_DELAY_MS, default 0 (the end of
 * the event-loop turn). A delay gathers bigger groups under heavy writing and makes every reply
 * that waits for a commit that much slower; the durability tests use it to widen the window in
 * which a crash meets uncommitted writes.
 */
function commitDelayMs(): number {
  const raw = process.env.CWS_COMMIT_DELAY_MS;
  if (raw === undefined || raw === "") return 0;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > 10_000)
    throw new Error(
      `CWS_COMMIT_DELAY_MS must be a whole number of milliseconds from 0 to 10000 (got '${raw}')`,
    );
  return ms;
}

interface Group {
  done: Promise<void>;
  commit(): void;
  fail(e: Error): void;
}

export class GroupCommit {
  private readonly db: DatabaseSync;
  private readonly begin: StatementSync;
  private readonly commit: StatementSync;
  private readonly rollback: StatementSync;
  private readonly delayMs = commitDelayMs();
  /** Writes the group's changes (inside the SQL transaction). */
  private readonly write: () => void;
  /** Called after each successful commit. */
  private readonly committed: () => void;
  /** The open group: writes made since the last commit. */
  private group: Group | undefined;
  /** Set when a commit failed: from then on no state may be acknowledged. */
  private failure: Error | undefined;

  constructor(db: DatabaseSync, write: () => void, committed: () => void = () => {}) {
    this.db = db;
    this.write = write;
    this.committed = committed;
    this.begin = db.prepare("BEGIN");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
  }

  /** Whether writes exist that are not committed yet (or a commit failed). */
  get dirty(): boolean {
    return this.group !== undefined || this.failure !== undefined;
  }

  /** The failed commit, when one failed. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /**
   * Resolves when every write made so far is committed; rejects when that commit failed, and
   * ever after: a server whose memory holds changes its database lost must not acknowledge
   * anything more (restarting it recovers the committed state).
   */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.group?.done ?? Promise.resolve();
  }

  /** Opens a group unless one is open; call with every write. */
  open(): void {
    if (this.group) return;
    let commit!: () => void;
    let fail!: (e: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
      commit = resolve;
      fail = reject;
    });
    // Rejections are handled by whoever waits; none waiting is no crash.
    done.catch(() => {});
    this.group = { done, commit, fail };
    if (this.delayMs > 0) setTimeout(this.flushLater, this.delayMs);
    else setImmediate(this.flushLater);
  }

  private readonly flushLater = (): void => this.flush();

  /** Commits the open group now (at close, and by the timer of the group). */
  flush(): void {
    const g = this.group;
    if (!g) return;
    this.group = undefined;
    try {
      this.begin.run();
      this.write();
      this.commit.run();
    } catch (e) {
      this.failure = new Error(`the database could not commit: ${(e as Error).message}`);
      if (this.db.isTransaction) this.rollback.run();
      g.fail(this.failure);
      return;
    }
    g.commit();
    this.committed();
  }
}
