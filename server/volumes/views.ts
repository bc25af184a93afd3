import type { Volume, VolumeCreated, VolumeState } from "../../api/index.ts";
import { volumeCostPerHour } from "../common/billing.ts";
import type { VolumeRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/** Wire views of volume records. */

export function volumeView(store: Store, v: VolumeRecord): Volume {
  const out: Volume = {
    uid: v.uid,
    name: v.name,
    size: v.size,
    resource_name: v.resource_name,
    state: { status: v.status, message: v.message, updated_at: v.state_updated_at },
    cost_per_hour: volumeCostPerHour(store, v),
    pvc_name: v.pvc_name,
    created_at: v.created_at,
    updated_at: v.updated_at,
  };
  if (v.workload_uid) {
    out.workload_uid = v.workload_uid;
    out.mount_path = v.mount_path;
  }
  if (v.last_backup_at) out.last_backup_at = v.last_backup_at;
  return out;
}

/** The answer to a volume create: its UID and state. */
export function volumeCreated(v: VolumeRecord): VolumeCreated {
  return { uid: v.uid, state: { status: v.status, message: v.message, updated_at: v.state_updated_at } };
}

export function volumeState(v: VolumeRecord): VolumeState {
  return { uid: v.uid, status: v.status, message: v.message, updated_at: v.state_updated_at };
}
