import type { PageQuery, VolumeCreate, VolumeEvent, VolumeListQuery, VolumePatch } from "../api/index.ts";
import { inventoryItem } from "./capacity.ts";
import { eventPage } from "./events.ts";
import { ApiError } from "./http/errors.ts";
import { paginate, type PageResult } from "./http/io.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { VolumeRecord } from "./records.ts";
import { newUid } from "./util.ts";
import { isLive } from "./workload-checks.ts";

/**
 * Volumes (spec 4.5): a volume is registered on a RENTAL inventory resource and provisioned when
 * the workload it is mounted on deploys (volume-state.ts). Delete is a hard delete; a volume
 * attached to a live workload is refused (409 VOLUME_IN_USE).
 */
export class VolumeService {
  private readonly lc: Lifecycle;

  constructor(lc: Lifecycle) {
    this.lc = lc;
  }

  private get store() {
    return this.lc.store;
  }

  /** The org's volume or 404 VOLUME_NOT_FOUND. */
  get(org: string, uid: string): VolumeRecord {
    const v = this.store.volumes.getIn(org, uid);
    if (!v) throw new ApiError("VOLUME_NOT_FOUND", `volume ${uid} not found`);
    return v;
  }

  create(org: string, body: VolumeCreate): VolumeRecord {
    const item = inventoryItem(this.store, body.resource_name);
    if (!item)
      throw new ApiError(
        "VOLUME_INVALID",
        `resource_name ${body.resource_name} is not an inventory resource`,
      );
    if (item.type !== "rental") {
      throw new ApiError(
        "VOLUME_INVALID",
        `resource_name ${body.resource_name} is a ${item.type} resource; volumes are mounted on RENTAL workloads and need a rental resource`,
      );
    }
    const now = this.lc.now();
    const uid = newUid("vol");
    const v: VolumeRecord = {
      uid,
      org,
      name: body.name,
      size: body.size_in_mb,
      resource_name: body.resource_name,
      status: "registered",
      message: "registered, provisioned when its workload deploys",
      state_updated_at: now,
      pvc_name: `pvc-${uid}`,
      resource_version: 0,
      created_at: now,
      updated_at: now,
    };
    this.store.transaction(() => {
      this.store.volumes.put(v);
      this.lc.volumes.recordVolumeEvent(v, {
        event_type: "CREATED",
        old_status: null,
        new_status: "registered",
        reason: "Registered",
      });
      this.store.volumes.put(v);
    });
    return v;
  }

  /** A page of the org's volumes, those mounted on workload_uid when the query names one. */
  list(org: string, q: VolumeListQuery): PageResult<VolumeRecord> {
    return paginate(
      this.store.volumes.list(org),
      q,
      (v) => q.workload_uid === undefined || v.workload_uid === q.workload_uid,
      undefined,
      (uid) => this.store.volumes.seqOf(uid),
    );
  }

  /** A page of a volume's events, oldest first. */
  events(v: VolumeRecord, q: PageQuery): PageResult<VolumeEvent> {
    return eventPage<VolumeEvent>(this.store, "volume", v.uid, q);
  }

  /** Renames the volume (the only field a PATCH changes). */
  update(v: VolumeRecord, patch: VolumePatch): VolumeRecord {
    if (patch.name !== v.name) {
      v.name = patch.name;
      v.updated_at = this.lc.now();
      this.store.volumes.put(v);
    }
    return v;
  }

  delete(org: string, uid: string): void {
    const v = this.get(org, uid);
    if (v.workload_uid && isLive(this.store.workloads.get(v.workload_uid))) {
      throw new ApiError(
        "VOLUME_IN_USE",
        `volume ${v.uid} is attached to workload ${v.workload_uid}: detach it or delete the workload first`,
      );
    }
    this.store.transaction(() => {
      this.lc.volumes.recordVolumeEvent(v, {
        event_type: "DELETED",
        old_status: v.status,
        new_status: "deleted",
        reason: "USER",
      });
      this.store.volumes.remove(v.uid);
    });
  }
}
