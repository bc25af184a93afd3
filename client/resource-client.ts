/**
 * The methods every resource client shares (spec section 4): list (one page), iterate (every
 * page), get, update (PATCH) and delete, each calling its endpoint of the table (api/endpoints/)
 * and reading the answer with the schema the table declares. Each resource's class extends this
 * with the methods only it has.
 */
import type { JsonEndpoint, ResourceEndpoints } from "../api/endpoints/index.ts";
import type { Page } from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { paginate } from "./pagination.ts";
import { pollUntil, type PollSpec, type WaitOptions } from "./waiters.ts";

/** Page size and cursor: the query of an events route, and the base of every list query. */
export interface EventsQuery {
  limit?: number;
  cursor?: string;
}

/** `Listed`: what a page lists of each member (the member itself unless said otherwise). */
export abstract class ResourceClient<Item, Query extends EventsQuery, Patch, Listed = Item> {
  protected readonly t: Transport;
  readonly #endpoints: ResourceEndpoints<Item, Listed>;

  constructor(transport: Transport, endpoints: ResourceEndpoints<Item, Listed>) {
    this.t = transport;
    this.#endpoints = endpoints;
  }

  /** One page. */
  list(query: Query = {} as Query, opts?: RequestOptions): Promise<Page<Listed>> {
    return this.t.json({ endpoint: this.#endpoints.list, query }, opts);
  }

  /** Every member matching `query`, following `next_cursor` page by page. */
  iterate(
    query: Omit<Query, "cursor"> = {} as Query,
    opts?: RequestOptions,
  ): AsyncGenerator<Listed, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor } as Query, opts));
  }

  get(uid: string, opts?: RequestOptions): Promise<Item> {
    return this.t.json({ endpoint: this.#endpoints.get, params: { uid } }, opts);
  }

  /** Sets the given fields (PATCH). */
  update(uid: string, patch: Patch, opts?: RequestOptions): Promise<Item> {
    return this.t.json({ endpoint: this.#endpoints.update, params: { uid }, body: patch }, opts);
  }

  delete(uid: string, opts?: RequestOptions): Promise<void> {
    return this.t.empty({ endpoint: this.#endpoints.delete, params: { uid } }, opts);
  }

  /**
   * Polls until the status of the member (or of what `read` gives instead, e.g. its state record)
   * is one of `target`; each read may take at most the request timeout. `check` throws when a
   * record shows the target can never be reached; `kind` names the member in a timeout's message.
   */
  protected waitFor<T extends { status: string }>(
    kind: string,
    uid: string,
    target: string | string[],
    opts: WaitOptions,
    check: PollSpec<T>["check"],
    read: PollSpec<T>["read"] = (o) => this.get(uid, o) as Promise<Item & T>,
  ): Promise<T> {
    return pollUntil({ kind, uid, target, read, check, readTimeoutMs: this.t.defaultTimeoutMs() }, opts);
  }
}

/** The endpoints of a resource whose members have a state record and an event log. */
export interface TrackedEndpoints<Item, Listed, State, Event> extends ResourceEndpoints<Item, Listed> {
  state: JsonEndpoint<State>;
  events: JsonEndpoint<Page<Event>>;
}

/** A resource whose members have a state record (`.../:uid/state`) and an event log (`.../:uid/events`). */
export abstract class TrackedResourceClient<
  Item,
  Query extends EventsQuery,
  Patch,
  State,
  Event,
  Listed = Item,
> extends ResourceClient<Item, Query, Patch, Listed> {
  readonly #endpoints: TrackedEndpoints<Item, Listed, State, Event>;

  constructor(transport: Transport, endpoints: TrackedEndpoints<Item, Listed, State, Event>) {
    super(transport, endpoints);
    this.#endpoints = endpoints;
  }

  /** The member's state record. */
  state(uid: string, opts?: RequestOptions): Promise<State> {
    return this.t.json({ endpoint: this.#endpoints.state, params: { uid } }, opts);
  }

  /** One page of the member's events. */
  events(uid: string, query: EventsQuery = {}, opts?: RequestOptions): Promise<Page<Event>> {
    return this.t.json({ endpoint: this.#endpoints.events, params: { uid }, query }, opts);
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
