/** Pagination: list routes return `{ items, next_cursor }`; `paginate` follows the cursor to the end. */
import type { Page } from "../api/index.ts";

/**
 * Yields every item of every page. `fetchPage(cursor)` loads one page; iteration stops when
 * `next_cursor` is empty or null (or a page is empty). Pages are fetched lazily, one at a time,
 * so breaking out of the loop stops further requests.
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  first?: string,
): AsyncGenerator<T, void, undefined> {
  let cursor = first;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    const next = page.next_cursor;
    if (!next || page.items.length === 0) return;
    if (seen.has(next))
      throw new Error(`pagination cursor ${next} repeated; stopping to avoid an endless loop`);
    seen.add(next);
    cursor = next;
  }
}
