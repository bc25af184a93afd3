import type { VolumeEvent } from "../../api/index.ts";
import { volumeCostPerHour } from "../common/billing.ts";
import type { VolumeRecord, WorkloadRecord, WorkloadVolume } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/**
 * Volume state that follows workloads: attach and detach records, the status a mounted volume
 * takes from its workload, and the volume events all of these write. `emit` is called with
 * every stored event (the lifecycle re-emits it as "volume-event").
 */
export class VolumeStates {
  private readonly store: Store;
  private readonly now: () => string;
  private readonly emit: (v: VolumeRecord, stored: unknown) => void;

  constructor(store: Store, now: () => string, emit: (v: VolumeRecord, stored: unknown) => void) {
    this.store = store;
    this.now = now;
    this.emit = emit;
  }

  recordVolumeEvent(
    v: VolumeRecord,
    e: { event_type: string; old_status: string | null; new_status: string | null; reason: string },
  ): void {
    v.resource_version++;
    const record: VolumeEvent = {
      volume_uid: v.uid,
      cost_per_second: Math.round((volumeCostPerHour(this.store, v) / 3600) * 1e9),
      resource_name: v.resource_name,
      event_type: e.event_type,
      namespace: `org-${v.org}`,
      pvc_name: v.pvc_name,
      storage_class: "standard-rwo",
      requested_size: `${v.size}Mi`,
      old_status: e.old_status,
      new_status: e.new_status,
      reason: e.reason,
      k8s_resource_version: String(v.resource_version),
      billing_status: e.new_status === "running" ? "BILLING" : "NOT_BILLED",
      billing_processed_at: null,
      created_at: this.now(),
    };
    const stored = this.store.addEvent("volume", v.uid, record);
    this.emit(v, stored);
  }

  setVolumeStatus(v: VolumeRecord, status: string, reason: string, message = ""): void {
    if (v.status === status) return;
    const old = v.status;
    v.status = status;
    v.message = message;
    v.state_updated_at = v.updated_at = this.now();
    this.recordVolumeEvent(v, { event_type: "STATUS_CHANGE", old_status: old, new_status: status, reason });
    this.store.volumes.put(v);
  }

  /** Volumes mounted on w follow its status: provisioning, running, else registered. */
  syncVolumes(w: WorkloadRecord): void {
    const desired =
      w.status === "provisioning" ? "provisioning" : w.status === "running" ? "running" : "registered";
    for (const m of w.volumes) {
      const v = this.store.volumes.get(m.uid);
      if (!v || v.workload_uid !== w.uid) continue;
      this.setVolumeStatus(v, desired, `workload ${w.status}`);
    }
  }

  /** Mounts volume v on w (record only; w's volumes list is the caller's). */
  attachVolume(w: WorkloadRecord, v: VolumeRecord, mountPath: string, readOnly: boolean): void {
    const changed = v.workload_uid !== w.uid;
    v.workload_uid = w.uid;
    v.mount_path = mountPath;
    v.read_only = readOnly;
    v.updated_at = this.now();
    if (changed)
      this.recordVolumeEvent(v, {
        event_type: "ATTACHED",
        old_status: v.status,
        new_status: v.status,
        reason: `attached to workload ${w.uid}`,
      });
    this.store.volumes.put(v);
  }

  detachVolume(v: VolumeRecord, reason: string): void {
    if (v.workload_uid === undefined) return;
    const from = v.workload_uid;
    v.workload_uid = undefined;
    v.mount_path = undefined;
    v.read_only = undefined;
    v.updated_at = this.now();
    this.recordVolumeEvent(v, {
      event_type: "DETACHED",
      old_status: v.status,
      new_status: v.status,
      reason: `${reason} (workload ${from})`,
    });
    this.setVolumeStatus(v, "registered", reason);
    this.store.volumes.put(v);
  }

  /** After w's volume list changed from `old` to `now`: detaches the volumes no longer listed, attaches the rest. */
  remount(w: WorkloadRecord, old: readonly WorkloadVolume[], now: readonly WorkloadVolume[]): void {
    for (const m of old) {
      if (now.some((n) => n.uid === m.uid)) continue;
      const v = this.store.volumes.get(m.uid);
      if (v && v.workload_uid === w.uid) this.detachVolume(v, "detached from workload");
    }
    for (const m of now) {
      const v = this.store.volumes.get(m.uid);
      if (v) this.attachVolume(w, v, m.mount_path, m.read_only);
    }
  }
}
