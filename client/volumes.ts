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
import { Collection, type EventsQuery } from "./collection.ts";
import type { RequestOptions, Transport } from "./http.ts";

export class Volumes extends Collection<Volume, Volume, VolumeListQuery, VolumePatch> {
  constructor(transport: Transport) {
    super(transport, "volumes", Volume, VolumeList);
  }

  /** Registers a volume (provisioned when a deployed RENTAL workload mounts it). Not retried after an ambiguous failure. */
  create(body: VolumeCreate, opts?: RequestOptions): Promise<VolumeCreated> {
    return this.t.json({ method: "POST", route: this.all, body }, VolumeCreated, opts);
  }

  state(uid: string, opts?: RequestOptions): Promise<VolumeState> {
    return this.t.json({ method: "GET", route: `${this.one}/state`, params: { uid } }, VolumeState, opts);
  }

  events(uid: string, query: EventsQuery = {}, opts?: RequestOptions): Promise<Page<VolumeEvent>> {
    return this.eventPage(uid, VolumeEventList, query, opts);
  }

  iterateEvents(
    uid: string,
    query: Omit<EventsQuery, "cursor"> = {},
    opts?: RequestOptions,
  ): AsyncGenerator<VolumeEvent, void, undefined> {
    return this.allEvents(uid, VolumeEventList, query, opts);
  }
}
