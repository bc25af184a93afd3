/**
 * A list resource: how the objects of one kind are found in an org, with the filters the API's
 * list route has (a workload's type, status, name and project; a volume's workload). Declared once
 * beside its kind (provider/resources/<kind>/list.ts) and read by every front end that lists:
 * `terraform query` (the OpenTofu front end's ListResource), `pulumi do <type> list` (the native
 * plugin's List, page by page on the API's cursors) and `cws adopt` (its inventory of an org), so
 * all three find the same objects. Listing reads no object in full: a front end that needs an
 * object's inputs reads it through its resource module, as an import does.
 */
import { z } from "zod";
import { LIMITS, type Page } from "../../api/index.ts";
import type { CwsClient } from "../../client/index.ts";
import type { CheckFailure, Props } from "./types.ts";

/** A filter of a list: its type (the API's own query field) and what it selects. */
export interface ListFilter {
  type: z.ZodType;
  description: string;
}

/** An object as listed: enough to identify it, name it and order it. */
export interface Listed {
  /** The resource type name (`Workload`, `SshKey`). */
  kind: string;
  uid: string;
  /** Its name on the service. */
  name: string;
  /** When it was made (empty where the list route does not say: workload templates). */
  createdAt: string;
  /** What a person reading a list should see beside the name: its type, status. */
  summary?: string;
}

/** Where a page starts and how long it may be: the list route's own cursor and limit. */
export interface PageAt {
  /** The API's cursor (the uid of the last item of the page before); none for the first page. */
  cursor?: string;
  /** At most this many of the route's items (the route's default page when not given). */
  limit?: number;
}

/** One page of a list: the objects it finds, and the API's cursor of the next page (none: the last). */
export interface ListPage {
  items: Listed[];
  next?: string;
}

/** What a list's kind declares: its filters and how one page of its list route is read. */
export interface ListSpec {
  /** The resource type it lists (a Definition's name). */
  kind: string;
  /** What the list finds, and what it leaves out. */
  description: string;
  /** The filters, by property name (camelCase, as inputs are named). */
  filters: Record<string, ListFilter>;
  /**
   * One page of the org's objects of the kind that `filters` select (checked by listFailures), in
   * the service's order. Only objects that can be managed: none the service has deleted, none of
   * the platform's or visible to every org (so a page may hold fewer than `at.limit`).
   */
  page(client: CwsClient, filters: Props, at: PageAt, signal?: AbortSignal): Promise<ListPage>;
}

export interface ListDefinition extends ListSpec {
  /** Every object `filters` select, page after page (each page read as it is reached). */
  list(client: CwsClient, filters: Props, signal?: AbortSignal): AsyncIterable<Listed>;
}

/** A list declared by its kind, with `list` following its pages. */
export function listDefinition(spec: ListSpec): ListDefinition {
  return {
    ...spec,
    async *list(client, filters, signal) {
      const seen = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await spec.page(client, filters, { cursor }, signal);
        yield* page.items;
        cursor = page.next;
        if (cursor && seen.has(cursor))
          throw new Error(`pagination cursor ${cursor} repeated; stopping to avoid an endless loop`);
        if (cursor) seen.add(cursor);
      } while (cursor);
    },
  };
}

/**
 * A list route's page as a list's page: the members `pick` keeps (undefined: left out), and the
 * next cursor (none once the route says so, or answers an empty page).
 */
export function pageOf<T>(page: Page<T>, pick: (item: T) => Listed | undefined): ListPage {
  const items = page.items.map(pick).filter((l): l is Listed => l !== undefined);
  const next = page.items.length > 0 && page.next_cursor ? page.next_cursor : undefined;
  return { items, ...(next ? { next } : {}) };
}

/**
 * Up to `want` objects from `cursor` on: one route page, or more while the pages leave objects
 * out, each route page no longer than what is still wanted, so the cursor returned is exactly where
 * the next objects start (none: the org has no more).
 */
export async function listFrom(
  def: ListSpec,
  client: CwsClient,
  filters: Props,
  from: { cursor?: string; want: number },
  signal?: AbortSignal,
): Promise<ListPage> {
  const items: Listed[] = [];
  let cursor = from.cursor;
  for (;;) {
    const limit = Math.min(from.want - items.length, LIMITS.maxPageSize);
    const page = await def.page(client, filters, { ...(cursor ? { cursor } : {}), limit }, signal);
    items.push(...page.items);
    cursor = page.next;
    if (!cursor || items.length >= from.want) return { items, ...(cursor ? { next: cursor } : {}) };
  }
}

/** What is wrong with the filters given to `def` (unknown filters, values the API refuses). */
export function listFailures(def: ListDefinition, filters: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [k, v] of Object.entries(filters)) {
    if (v === undefined || v === null) continue;
    const f = def.filters[k];
    if (!f) {
      failures.push({
        property: k,
        reason: `${k} is not a filter of this list: ${Object.keys(def.filters).join(", ") || "it has none"}`,
      });
      continue;
    }
    const r = f.type.safeParse(v);
    if (!r.success) failures.push({ property: k, reason: r.error.issues[0]?.message ?? `${k} is not valid` });
  }
  return failures;
}

/** A filter that takes one of `values` (an enum of the contract), its error naming them. */
export function oneOf(name: string, values: readonly [string, ...string[]], description: string): ListFilter {
  return { type: z.enum(values, { error: `${name} must be one of ${values.join(", ")}` }), description };
}

/** A filter that takes a non-empty string. */
export function text(name: string, description: string): ListFilter {
  return { type: z.string().min(1, `${name} must not be empty`), description };
}
