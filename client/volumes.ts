/** `client.volumes`: spec section 4.5. */
import {
  Volume,
  VolumeCreated,
  VolumeEventList,
  VolumeList,
  VolumeState,
  type Page,
  type VolumeCreate,
  type VolumeEvent,
  type VolumeListQuery,
  type VolumePatch,
} from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import type { EventsQuery } from "./workloads.ts";
import { paginate } from "./pagination.ts";

const ALL = "/orgs/{org}/volumes";
const ONE = `${ALL}/{uid}`;

export class Volumes {
  #t: Transport;
  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** Registers a volume (provisioned when a deployed RENTAL workload mounts it). Not retried after an ambiguous failure. */
  create(body: VolumeCreate, opts?: RequestOptions): Promise<VolumeCreated> {
    return this.#t.json({ method: "POST", route: ALL, body }, VolumeCreated, opts);
  }

  list(query: VolumeListQuery = {}, opts?: RequestOptions): Promise<Page<Volume>> {
    return this.#t.json({ method: "GET", route: ALL, query }, VolumeList, opts);
  }

  iterate(
    query: Omit<VolumeListQuery, "cursor"> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<Volume, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }, opts));
  }

  get(uid: string, opts?: RequestOptions): Promise<Volume> {
    return this.#t.json({ method: "GET", route: ONE, params: { uid } }, Volume, opts);
  }

  state(uid: string, opts?: RequestOptions): Promise<VolumeState> {
    return this.#t.json({ method: "GET", route: `${ONE}/state`, params: { uid } }, VolumeState, opts);
  }

  events(uid: string, query: EventsQuery = {}, opts?: RequestOptions): Promise<Page<VolumeEvent>> {
    return this.#t.json(
      { method: "GET", route: `${ONE}/events`, params: { uid }, query },
      VolumeEventList,
      opts,
    );
  }

  iterateEvents(
    uid: string,
    query: Omit<EventsQuery, "cursor"> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<VolumeEvent, void, undefined> {
    return paginate((cursor) => this.events(uid, { ...query, cursor }, opts));
  }

  update(uid: string, patch: VolumePatch, opts?: RequestOptions): Promise<Volume> {
    return this.#t.json({ method: "PATCH", route: ONE, params: { uid }, body: patch }, Volume, opts);
  }

  delete(uid: string, opts?: RequestOptions): Promise<void> {
    return this.#t.empty({ method: "DELETE", route: ONE, params: { uid } }, opts);
  }
}
