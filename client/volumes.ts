/** `client.volumes`: spec section 4.5. */
import { VOLUMES } from "../api/endpoints/index.ts";
import type {
  Volume,
  VolumeCreate,
  VolumeCreated,
  VolumeEvent,
  VolumeListQuery,
  VolumePatch,
  VolumeState,
} from "../api/index.ts";
import type { RequestOptions, Transport } from "./http.ts";
import { TrackedResourceClient } from "./resource-client.ts";

export class Volumes extends TrackedResourceClient<
  Volume,
  VolumeListQuery,
  VolumePatch,
  VolumeState,
  VolumeEvent
> {
  constructor(transport: Transport) {
    super(transport, VOLUMES);
  }

  /** Registers a volume (provisioned when a deployed RENTAL workload mounts it). Not retried after an ambiguous failure. */
  create(body: VolumeCreate, opts?: RequestOptions): Promise<VolumeCreated> {
    return this.t.json({ endpoint: VOLUMES.create, body }, opts);
  }
}
