import { redeploys, type AttachVolumeBody } from "../../api/index.ts";
import { ApiError, notFound } from "../http/errors.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { WorkloadRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import type { WorkloadChecks } from "./checks.ts";

/**
 * Attaching and detaching volumes and SSH keys on a live workload: the rules, the change written
 * in one transaction with its event, and a redeploy where the change needs one.
 */
export class WorkloadAttachments {
  private readonly lc: Lifecycle;
  private readonly store: Store;
  private readonly checks: WorkloadChecks;

  constructor(store: Store, lc: Lifecycle, checks: WorkloadChecks) {
    this.lc = lc;
    this.store = store;
    this.checks = checks;
  }

  /** Mounts (or re-mounts) a volume of w's org on a RENTAL workload. */
  attachVolume(
    w: WorkloadRecord,
    volumeUid: string,
    body: AttachVolumeBody,
  ): { workload_uid: string; volume_uid: string; mount_path: string; read_only: boolean } {
    if (w.type !== "RENTAL")
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `volumes can only be attached to RENTAL workloads (workload ${w.uid} is ${w.type})`,
      );
    const v = this.store.volumes.getIn(w.org, volumeUid);
    if (!v) throw notFound("VOLUME_NOT_FOUND", "volume", volumeUid);
    this.checks.volumeFree(v.uid, v.workload_uid, w.uid);
    const clash = w.volumes.find((m) => m.mount_path === body.mount_path && m.uid !== v.uid);
    if (clash)
      throw new ApiError(
        "WORKLOAD_FIELD_INVALID",
        `mount_path ${body.mount_path} is used by volume ${clash.uid}`,
      );
    const mount = { uid: v.uid, mount_path: body.mount_path, read_only: body.read_only ?? false };
    const existing = w.volumes.find((m) => m.uid === v.uid);
    const changed =
      !existing || existing.mount_path !== mount.mount_path || existing.read_only !== mount.read_only;
    if (changed) {
      this.remount(
        w,
        existing ? w.volumes.map((m) => (m.uid === v.uid ? mount : m)) : [...w.volumes, mount],
        ["VOLUME_ATTACHED", "VolumeAttached", `volume ${v.uid} mounted at ${mount.mount_path}`],
      );
    }
    return {
      workload_uid: w.uid,
      volume_uid: v.uid,
      mount_path: mount.mount_path,
      read_only: mount.read_only,
    };
  }

  detachVolume(w: WorkloadRecord, volumeUid: string): void {
    const mount = w.volumes.find((m) => m.uid === volumeUid);
    if (!mount)
      throw new ApiError(
        "WORKLOAD_VOLUME_NOT_ATTACHED",
        `volume ${volumeUid} is not attached to workload ${w.uid}`,
      );
    this.remount(
      w,
      w.volumes.filter((m) => m.uid !== mount.uid),
      ["VOLUME_DETACHED", "VolumeDetached", `volume ${mount.uid} detached`],
    );
  }

  /**
   * Gives w the mounts `volumes`: the volumes follow (volume-states.ts), the workload and its
   * event are written in one transaction, and a deployed workload redeploys where its type asks.
   */
  private remount(
    w: WorkloadRecord,
    volumes: WorkloadRecord["volumes"],
    [event_type, reason, message]: [string, string, string],
  ): void {
    const redeploy = redeploys(w.type, w.status, ["volumes"]);
    if (redeploy) this.lc.assertCanRedeploy(w);
    const old = w.volumes;
    w.volumes = volumes;
    this.store.transaction(() => {
      w.updated_at = this.lc.now();
      this.lc.volumes.remount(w, old, w.volumes);
      this.lc.saveWithEvent(w, { event_type, reason, message });
      if (redeploy) this.lc.redeploy(w);
    });
  }

  async attachSshKey(
    w: WorkloadRecord,
    keyUid: string,
  ): Promise<{ workload_uid: string; ssh_key_uid: string }> {
    const key = this.store.sshKeys.getIn(w.org, keyUid);
    if (!key) throw notFound("SSH_KEY_NOT_FOUND", "SSH key", keyUid);
    if (!w.ssh_keys.includes(key.uid)) {
      const redeploy = redeploys(w.type, w.status, ["ssh_keys"]);
      if (redeploy) this.lc.assertCanRedeploy(w);
      const before = structuredClone(w);
      w.ssh_keys = [...w.ssh_keys, key.uid];
      w.updated_at = this.lc.now();
      this.store.transaction(() => {
        this.lc.saveWithEvent(w, {
          event_type: "SSH_KEY_ATTACHED",
          reason: "SshKeyAttached",
          message: `SSH key ${key.uid} attached`,
        });
        if (redeploy) this.lc.redeploy(w);
      });
      if (w.type === "SANDBOX") await this.lc.hooks.onUpdate?.(before, w);
    }
    return { workload_uid: w.uid, ssh_key_uid: key.uid };
  }

  async detachSshKey(w: WorkloadRecord, keyUid: string): Promise<void> {
    const uid = keyUid;
    if (!w.ssh_keys.includes(uid))
      throw new ApiError(
        "WORKLOAD_SSH_KEY_NOT_ATTACHED",
        `SSH key ${uid} is not attached to workload ${w.uid}`,
      );
    if (w.type === "BM" && w.ssh_keys.length === 1) {
      throw new ApiError(
        "WORKLOAD_BM_SSH_KEYS_REQUIRED",
        `ssh_keys must keep at least one SSH key for BM workloads; ${uid} is the last one`,
      );
    }
    const redeploy = redeploys(w.type, w.status, ["ssh_keys"]);
    if (redeploy) this.lc.assertCanRedeploy(w);
    const before = structuredClone(w);
    w.ssh_keys = w.ssh_keys.filter((k) => k !== uid);
    w.updated_at = this.lc.now();
    this.store.transaction(() => {
      this.lc.saveWithEvent(w, {
        event_type: "SSH_KEY_DETACHED",
        reason: "SshKeyDetached",
        message: `SSH key ${uid} detached`,
      });
      if (redeploy) this.lc.redeploy(w);
    });
    if (w.type === "SANDBOX") await this.lc.hooks.onUpdate?.(before, w);
  }
}
