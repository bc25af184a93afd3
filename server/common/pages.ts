import type { PageQuery } from "../../api/index.ts";
import { invalidCursor, type Cursors } from "./cursors.ts";

export interface PageResult<T> {
  items: T[];
  next_cursor: string | null;
}

/** Which list a page belongs to: cursors are bound to the org and the list's name. */
export interface ListScope {
  cursors: Cursors;
  org: string;
  /** e.g. "volumes", "workloads/<uid>/events". */
  list: string;
}

export const DEFAULT_PAGE_SIZE = 1000;

/**
 * One page of `all` (ascending by `positionOf`): the items after the cursor's position that
 * pass `filter`, at most `limit`. The cursor is a next_cursor this list handed out (see
 * cursors.ts), or, as spec 4.1 and 4.3 describe it, the UID of an item the org sees in this
 * list now. Anything else (another org's or list's cursor, a UID the list does not show, a
 * forged or stale cursor) is the same 404 CURSOR_NOT_FOUND.
 */
export function pageOf<T extends { uid: string }>(
  scope: ListScope,
  all: readonly T[],
  positionOf: (t: T) => number,
  q: PageQuery,
  filter: (t: T) => boolean = () => true,
): PageResult<T> {
  const limit = q.limit ?? DEFAULT_PAGE_SIZE;
  let start = 0;
  if (q.cursor !== undefined) {
    let after = scope.cursors.position(scope.org, scope.list, q.cursor);
    if (after === undefined) {
      const named = all.find((t) => t.uid === q.cursor);
      if (!named) throw invalidCursor();
      after = positionOf(named);
    }
    start = firstAfter(all, positionOf, after);
  }
  const items: T[] = [];
  let more = false;
  for (let i = start; i < all.length; i++) {
    const t = all[i]!;
    if (!filter(t)) continue;
    if (items.length === limit) {
      more = true;
      break;
    }
    items.push(t);
  }
  const last = items[items.length - 1];
  return {
    items,
    next_cursor: more && last ? scope.cursors.issue(scope.org, scope.list, positionOf(last)) : null,
  };
}

/** Index of the first item whose position is greater than `after` (binary search). */
function firstAfter<T>(all: readonly T[], positionOf: (t: T) => number, after: number): number {
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (positionOf(all[mid]!) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Events as the store keeps them: ids ascending within a subject. */
export interface EventSource {
  events<T>(kind: string, subject: string, afterId?: number, limit?: number): { id: number; record: T }[];
}

/**
 * One page of the events of a workload or a volume, oldest first. The cursor is a next_cursor
 * of this subject's events; anything else is 404 CURSOR_NOT_FOUND (the same answer for all).
 */
export function eventPageOf<T>(
  scope: ListScope,
  source: EventSource,
  kind: string,
  subject: string,
  q: PageQuery,
): PageResult<T> {
  let after = 0;
  if (q.cursor !== undefined) {
    const pos = scope.cursors.position(scope.org, scope.list, q.cursor);
    if (pos === undefined) throw invalidCursor();
    after = pos;
  }
  const limit = q.limit ?? DEFAULT_PAGE_SIZE;
  const rows = source.events<T>(kind, subject, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => r.record),
    next_cursor: rows.length > limit && last ? scope.cursors.issue(scope.org, scope.list, last.id) : null,
  };
}
