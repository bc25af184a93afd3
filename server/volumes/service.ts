import { type VolumePatch, type VolumeCreate, type VolumeListQuery } from "../../api/index.ts";
import { inventoryItem } from "../seed/schema.ts";
import { rename, ResourceService } from "../common/resource-service.ts";
import type { ServiceDeps } from "../common/service-deps.ts";
import type { PageResult } from "../common/pages.ts";
import { ApiError } from "../http/errors.ts";
import type { VolumeRecord } from "../store/records.ts";
import { newUid } from "../common/util.ts";
import type { VolumeStates } from "../workloads/volume-states.ts";
import { refuseWhileUsed } from "../workloads/checks.ts";

/**
 * Volumes (spec 4.5): a volume is registered on a RENTAL inventory resource and provisioned when
 * the workload it is mounted on deploys (workloads/volume-states.ts). PATCH renames it. Delete is
 * a hard delete; a volume attached to a live workload is refused (409 VOLUME_IN_USE).
 */
export class VolumeService extends ResourceService<VolumeRecord, VolumePatch> {
  private readonly states: VolumeStates;

  constructor(deps: ServiceDeps, states: VolumeStates) {
    super(deps, deps.store.volumes, {
      name: "volumes",
      noun: "volume",
      notFound: "VOLUME_NOT_FOUND",
      apply: rename,
      deletable: (v) =>
        refuseWhileUsed(
          "VOLUME_IN_USE",
          `volume ${v.uid}`,
          [v.workload_uid ? deps.store.workloads.get(v.workload_uid) : undefined],
          "detach it or delete the workload first",
        ),
      onDelete: (v) =>
        states.recordVolumeEvent(v, {
          event_type: "DELETED",
          old_status: v.status,
          new_status: "deleted",
          reason: "USER",
        }),
      events: "volume",
    });
    this.states = states;
  }

  create(org: string, body: VolumeCreate): VolumeRecord {
    const item = inventoryItem(this.store.seed, body.resource_name);
    if (!item)
      throw new ApiError(
        "VOLUME_RESOURCE_NOT_FOUND",
        `resource_name ${body.resource_name} is not an inventory resource`,
      );
    if (item.type !== "rental") {
      throw new ApiError(
        "VOLUME_RESOURCE_NOT_FOUND",
        `resource_name ${body.resource_name} is a ${item.type} resource; volumes are mounted on RENTAL workloads and need a rental resource`,
      );
    }
    const now = this.now();
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
      this.docs.put(v);
      this.states.recordVolumeEvent(v, {
        event_type: "CREATED",
        old_status: null,
        new_status: "registered",
        reason: "Registered",
      });
      this.docs.put(v);
    });
    return v;
  }

  /** A page of the org's volumes, those mounted on workload_uid when the query names one. */
  override list(org: string, q: VolumeListQuery): PageResult<VolumeRecord> {
    return super.list(org, q, (v) => q.workload_uid === undefined || v.workload_uid === q.workload_uid);
  }
}
