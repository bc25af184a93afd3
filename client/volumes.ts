/** `client.volumes`: spec section 4.5. */
import {
  Volume,
  VolumeCreated,
  VolumeEventList,
  VolumeList,
  VolumeState,
  type VolumeCreate,
  type VolumeEvent,
  type VolumeListQuery,
  type VolumePatch,
} from "../api/index.ts";
import { TrackedCollection } from "./collection.ts";
import type { RequestOptions, Transport } from "./http.ts";

export class Volumes extends TrackedCollection<
  Volume,
  Volume,
  VolumeListQuery,
  VolumePatch,
  VolumeState,
  VolumeEvent
> {
  constructor(transport: Transport) {
    super(transport, "volumes", {
      item: Volume,
      list: VolumeList,
      state: VolumeState,
      events: VolumeEventList,
    });
  }

  /** Registers a volume (provisioned when a deployed RENTAL workload mounts it). Not retried after an ambiguous failure. */
  create(body: VolumeCreate, opts?: RequestOptions): Promise<VolumeCreated> {
    return this.t.json({ method: "POST", route: this.all, body }, VolumeCreated, opts);
  }
}
