/**
 * The routes every collection of spec section 4 shares, under `/orgs/{org}/<name>`: list (one page),
 * iterate (every page), get, update (PATCH) and delete. Each collection class extends this with the
 * schemas of its own wire types and adds the routes only it has.
 */
import type { z } from "zod";
import type { Page } from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { paginate } from "./pagination.ts";
import { pollUntil, type PollSpec, type WaitOptions } from "./waiters.ts";

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

  /** Polls a member until its status is a target; each read may take at most the request timeout. */
  protected poll<T extends { status: string }>(
    spec: Omit<PollSpec<T>, "readTimeoutMs">,
    opts: WaitOptions,
  ): Promise<T> {
    return pollUntil({ ...spec, readTimeoutMs: this.t.defaultTimeoutMs() }, opts);
  }

  /** A GET or POST on one member's sub-route (`.../{uid}/<path>`), answered with JSON of `schema`. */
  protected onMember<T>(
    method: "GET" | "POST",
    uid: string,
    path: string,
    schema: z.ZodType<T>,
    opts?: RequestOptions,
  ): Promise<T> {
    return this.t.json({ method, route: `${this.one}/${path}`, params: { uid } }, schema, opts);
  }
}

/** The schemas of a tracked collection's wire types. */
export interface TrackedSchemas<Item, Listed, State, Event> {
  item: z.ZodType<Item>;
  list: z.ZodType<Page<Listed>>;
  state: z.ZodType<State>;
  events: z.ZodType<Page<Event>>;
}

/** A collection whose members have a state record (`.../{uid}/state`) and an event log (`.../{uid}/events`). */
export abstract class TrackedCollection<
  Item,
  Listed,
  Query extends EventsQuery,
  Patch,
  State,
  Event,
> extends Collection<Item, Listed, Query, Patch> {
  readonly #state: z.ZodType<State>;
  readonly #events: z.ZodType<Page<Event>>;

  constructor(transport: Transport, name: string, schemas: TrackedSchemas<Item, Listed, State, Event>) {
    super(transport, name, schemas.item, schemas.list);
    this.#state = schemas.state;
    this.#events = schemas.events;
  }

  /** The member's state record. */
  state(uid: string, opts?: RequestOptions): Promise<State> {
    return this.onMember("GET", uid, "state", this.#state, opts);
  }

  /** One page of the member's events. */
  events(uid: string, query: EventsQuery = {}, opts?: RequestOptions): Promise<Page<Event>> {
    return this.t.json(
      { method: "GET", route: `${this.one}/events`, params: { uid }, query },
      this.#events,
      opts,
    );
  }

  /** All events of the member, page by page. */
  iterateEvents(
    uid: string,
    query: Omit<EventsQuery, "cursor"> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<Event, void, undefined> {
    return paginate((cursor) => this.events(uid, { ...query, cursor }, opts));
  }
}
