import { ApiError } from "./http/errors.ts";
import type { PageResult } from "./http/io.ts";
import type { Store } from "./store.ts";

/**
 * One page of the events of a workload or a volume, oldest first. The cursor is the id of the
 * last event of the previous page (next_cursor); any other cursor is 400 INVALID_QUERY.
 */
export function eventPage<T>(
  store: Store,
  kind: "workload" | "volume",
  uid: string,
  q: { cursor?: string; limit?: number },
): PageResult<T> {
  let after = 0;
  if (q.cursor !== undefined) {
    after = /^\d+$/.test(q.cursor) ? Number(q.cursor) : -1;
    if (after <= 0 || !store.eventExists(kind, uid, after))
      throw new ApiError("INVALID_QUERY", `cursor ${q.cursor} is not an event cursor of this ${kind}`);
  }
  const limit = q.limit ?? 1000;
  const rows = store.events<T>(kind, uid, after, limit + 1);
  const page = rows.slice(0, limit);
  return {
    items: page.map((r) => r.record),
    next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
  };
}
