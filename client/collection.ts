/**
 * The routes every collection of spec section 4 shares, under `/orgs/{org}/<name>`: list (one page),
 * iterate (every page), get, update (PATCH) and delete. Each collection class extends this with the
 * schemas of its own wire types and adds the routes only it has.
 */
import type { z } from "zod";
import type { Page } from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { paginate } from "./pagination.ts";

/** Page size and cursor: the query of an events route, and the base of every list query. */
export interface EventsQuery {
  limit?: number;
  cursor?: string;
}

export abstract class Collection<Item, Listed, Query extends EventsQuery, Patch> {
  protected readonly t: Transport;
  /** `/orgs/{org}/<name>`: the collection. */
  protected readonly all: string;
  /** `/orgs/{org}/<name>/{uid}`: one member. */
  protected readonly one: string;
  readonly #item: z.ZodType<Item>;
  readonly #list: z.ZodType<Page<Listed>>;

  constructor(transport: Transport, name: string, item: z.ZodType<Item>, list: z.ZodType<Page<Listed>>) {
    this.t = transport;
    this.all = `/orgs/{org}/${name}`;
    this.one = `${this.all}/{uid}`;
    this.#item = item;
    this.#list = list;
  }

  /** One page. */
  list(query: Query = {} as Query, opts?: RequestOptions): Promise<Page<Listed>> {
    return this.t.json({ method: "GET", route: this.all, query }, this.#list, opts);
  }

  /** Every member matching `query`, following `next_cursor` page by page. */
  iterate(
    query: Omit<Query, "cursor"> = {} as Query,
    opts?: RequestOptions,
  ): AsyncGenerator<Listed, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor } as Query, opts));
  }

  get(uid: string, opts?: RequestOptions): Promise<Item> {
    return this.t.json({ method: "GET", route: this.one, params: { uid } }, this.#item, opts);
  }

  /** Sets the given fields (PATCH). */
  update(uid: string, patch: Patch, opts?: RequestOptions): Promise<Item> {
    return this.t.json({ method: "PATCH", route: this.one, params: { uid }, body: patch }, this.#item, opts);
  }

  delete(uid: string, opts?: RequestOptions): Promise<void> {
    return this.t.empty({ method: "DELETE", route: this.one, params: { uid } }, opts);
  }

  /** One page of a member's events (`GET .../{uid}/events`). */
  protected eventPage<E>(
    uid: string,
    schema: z.ZodType<Page<E>>,
    query: EventsQuery,
    opts?: RequestOptions,
  ): Promise<Page<E>> {
    return this.t.json({ method: "GET", route: `${this.one}/events`, params: { uid }, query }, schema, opts);
  }

  /** Every event of a member, page by page. */
  protected allEvents<E>(
    uid: string,
    schema: z.ZodType<Page<E>>,
    query: Omit<EventsQuery, "cursor">,
    opts?: RequestOptions,
  ): AsyncGenerator<E, void, undefined> {
    return paginate((cursor) => this.eventPage(uid, schema, { ...query, cursor }, opts));
  }
}
