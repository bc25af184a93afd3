import { ServerResponse } from "node:http";
import type { Store } from "../store/store.ts";
import { ApiError } from "./errors.ts";

/**
 * Nothing leaves the server before the writes it may depend on are committed (the store's
 * group commit, server/store/store.ts): a reply is held while the store has uncommitted writes, so
 * no client sees a state that a crash could still lose.
 *
 * A reply made while a group is open can only have read writes of that group or of earlier
 * ones (groups commit in order), so it waits for that group's commit and no longer.
 *
 * JSON replies wait in the request listener (`afterCommit`), before their headers are written,
 * so that a failed commit can still be answered with an error. Responses a route writes itself
 * (streams: logs, exec, files) are held by the response class (`durableResponses`): a write
 * made while the store is dirty is queued and goes out after the commit, in order; when the
 * commit fails the response is cut.
 */

/** The error every held reply gets when the commit it waited for failed. */
export function unsavedError(): ApiError {
  return new ApiError(
    "INTERNAL_ERROR",
    "the server could not save its state (database commit failed); restart it: it resumes from the last saved change",
  );
}

/** What waits for one group's commit: callbacks in pairs (done, failed), in order. */
interface Batch {
  group: Promise<void>;
  waiting: (((e: Error) => void) | (() => void))[];
}

const batches = new WeakMap<Store, Batch>();

/**
 * Runs `done` once every write made so far is committed (at once when nothing is pending), or
 * `failed` when that commit fails. Everything waiting for the same commit shares one promise
 * reaction and runs in the order it came.
 */
export function afterCommit(store: Store, done: () => void, failed: (e: Error) => void): void {
  if (!store.dirty) return done();
  const group = store.durable();
  let batch = batches.get(store);
  if (batch?.group !== group) {
    const b: Batch = (batch = { group, waiting: [] });
    batches.set(store, b);
    group.then(
      () => {
        for (let i = 0; i < b.waiting.length; i += 2) (b.waiting[i] as () => void)();
      },
      (e: Error) => {
        for (let i = 1; i < b.waiting.length; i += 2) (b.waiting[i] as (e: Error) => void)(e);
      },
    );
  }
  batch.waiting.push(done, failed);
}

const held = Symbol("held writes");
const direct = Symbol("write without waiting");

interface Holding extends ServerResponse {
  /** Writes made while the store was dirty, in order; undefined when none is held. */
  [held]?: (() => void)[];
  [direct]?: boolean;
}

/** Lets `res` write at once: the store-failure error carries no state and must not wait. */
export function writeDirectly(res: ServerResponse): void {
  (res as Holding)[direct] = true;
}

/** Whether a write on res must wait: uncommitted writes exist, or earlier writes are still held. */
function mustWait(store: Store, res: Holding): boolean {
  return !res[direct] && (res[held] !== undefined || store.dirty);
}

/** Queues a write of res until the open group commits (writes queued later join it). */
function hold(store: Store, res: Holding, fn: () => void): void {
  const queue = res[held];
  if (queue) queue.push(fn);
  else {
    res[held] = [fn];
    release(store, res);
  }
}

function release(store: Store, res: Holding): void {
  afterCommit(
    store,
    () => {
      // Something written right after the commit may have been queued since: wait for it too.
      if (store.dirty) return release(store, res);
      const queue = res[held]!;
      res[held] = undefined;
      for (const write of queue) write();
    },
    (e) => {
      res[held] = undefined;
      res.destroy(e);
    },
  );
}

const classes = new WeakMap<Store, typeof ServerResponse>();

/** The ServerResponse class of a server on `store` (node:http's `ServerResponse` option). */
export function durableResponses(store: Store): typeof ServerResponse {
  let cls = classes.get(store);
  if (cls) return cls;
  const write = ServerResponse.prototype.write as (...a: unknown[]) => boolean;
  const end = ServerResponse.prototype.end as (...a: unknown[]) => ServerResponse;
  const flushHeaders = ServerResponse.prototype.flushHeaders;

  cls = class DurableResponse extends ServerResponse {
    override write(...args: unknown[]): boolean {
      if (!mustWait(store, this)) return write.apply(this, args);
      hold(store, this, () => void write.apply(this, args));
      return true;
    }

    override end(...args: unknown[]): this {
      if (!mustWait(store, this)) return end.apply(this, args) as this;
      hold(store, this, () => void end.apply(this, args));
      return this;
    }

    override flushHeaders(): void {
      if (!mustWait(store, this)) return flushHeaders.call(this);
      hold(store, this, () => flushHeaders.call(this));
    }
  } as typeof ServerResponse;
  classes.set(store, cls);
  return cls;
}
