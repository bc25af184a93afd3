import { INVENTORY_TYPE, type WorkloadCreate, type WorkloadType } from "../../api/index.ts";
import { inventoryItem } from "../seed/schema.ts";
import { ApiError } from "../http/errors.ts";
import type { SandboxTemplateRecord, WorkloadRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/** Whether a workload exists and is not deleted (it holds its volumes, keys and reservation). */
export function isLive(w: WorkloadRecord | undefined): w is WorkloadRecord {
  return w !== undefined && w.status !== "deleted";
}

/**
 * Refuses (409 `reason`) to delete `what` (e.g. "volume vol-1") while one of `users` is live;
 * `hint` says how to free it.
 */
export function refuseWhileUsed(
  reason: "VOLUME_IN_USE" | "SSH_KEY_IN_USE",
  what: string,
  users: (WorkloadRecord | undefined)[],
  hint: string,
): void {
  const live = users.filter(isLive);
  if (live.length) {
    throw new ApiError(
      reason,
      `${what} is attached to workload ${live.map((w) => w.uid).join(", ")}: ${hint}`,
    );
  }
}

/**
 * The workload rules that need server data: inventory, images, regions, reservations, SSH keys,
 * volumes and sandbox templates. The rules that need none are the contract's
 * (api/workload-rules.ts). Each check throws the ApiError of the first rule that fails.
 */
export class WorkloadChecks {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  resource(type: WorkloadType, name: string | undefined): void {
    if (name === undefined) return;
    const item = inventoryItem(this.store.seed, name);
    if (!item)
      throw new ApiError("WORKLOAD_RESOURCE_NOT_FOUND", `resource_name ${name} is not an inventory resource`);
    const want = type === "SANDBOX" ? "sandbox" : INVENTORY_TYPE[type];
    if (item.type !== want) {
      throw new ApiError(
        "WORKLOAD_RESOURCE_TYPE_MISMATCH",
        `resource_name ${name} is a ${item.type} resource; ${type} workloads need a ${want} resource`,
      );
    }
  }

  image(type: WorkloadType, image: string): void {
    const seed = this.store.seed;
    if (type === "VM" && !seed.vm_images.some((i) => i.name === image)) {
      throw new ApiError(
        "WORKLOAD_IMAGE_NOT_FOUND",
        `image ${image} is not a known VM image (see GET /orgs/{org}/workloads/vm-images)`,
      );
    }
    if (type === "BM" && !seed.bm_images.some((i) => i.name === image)) {
      throw new ApiError(
        "WORKLOAD_BM_TARGET_NOT_FOUND",
        `image ${image} is not a known BM image (see GET /orgs/{org}/workloads/bm-images)`,
      );
    }
  }

  sshKeys(org: string, keys: readonly string[] | undefined): void {
    if (!keys) return;
    // A key named twice is a rule of the body (api/workload-rules.ts).
    keys.forEach((k, i) => {
      if (!this.store.sshKeys.getIn(org, k))
        throw new ApiError("WORKLOAD_SSH_KEY_NOT_FOUND", `ssh_keys[${i}]: SSH key ${k} not found`);
    });
  }

  /** Volumes exist in the org, are listed once, and are not mounted by another live workload. */
  volumes(
    org: string,
    mounts: readonly { uid: string; mount_path: string }[] | undefined,
    self?: string,
  ): void {
    if (!mounts) return;
    const uids = new Set<string>();
    const paths = new Set<string>();
    mounts.forEach((m, i) => {
      if (uids.has(m.uid))
        throw new ApiError("WORKLOAD_FIELD_INVALID", `volumes[${i}] repeats volume ${m.uid}`);
      if (paths.has(m.mount_path))
        throw new ApiError(
          "WORKLOAD_FIELD_INVALID",
          `volumes[${i}].mount_path ${m.mount_path} is used by another volume`,
        );
      uids.add(m.uid);
      paths.add(m.mount_path);
      const v = this.store.volumes.getIn(org, m.uid);
      if (!v) throw new ApiError("WORKLOAD_VOLUME_NOT_FOUND", `volumes[${i}]: volume ${m.uid} not found`);
      this.volumeFree(v.uid, v.workload_uid, self);
    });
  }

  /** A volume held by a live workload other than `self` cannot be mounted (409 WORKLOAD_VOLUME_IN_USE). */
  volumeFree(volumeUid: string, holder: string | undefined, self?: string): void {
    if (holder && holder !== self && isLive(this.store.workloads.get(holder))) {
      throw new ApiError(
        "WORKLOAD_VOLUME_IN_USE",
        `volume ${volumeUid} is attached to workload ${holder}; a volume is attached to one workload at a time`,
      );
    }
  }

  regionAndReservation(org: string, body: WorkloadCreate, self?: string): void {
    const seed = this.store.seed;
    if (body.type === "BM" && body.region) {
      const region = seed.regions.find((r) => r.uid === body.region);
      if (!region || !region.active) {
        throw new ApiError(
          "WORKLOAD_BM_REGION_NOT_FOUND",
          `region ${body.region} is not an active region (see GET /region)`,
        );
      }
    }
    if (body.reservation_uid === undefined) return;
    const r = seed.reservations.find((x) => x.uid === body.reservation_uid && x.org === org);
    if (!r) {
      if (body.type === "BM")
        throw new ApiError("WORKLOAD_BM_TARGET_NOT_FOUND", `reservation ${body.reservation_uid} not found`);
      throw new ApiError("WORKLOAD_RESERVATION_NOT_FOUND", `reservation ${body.reservation_uid} not found`);
    }
    if (r.type !== body.type)
      throw new ApiError(
        "WORKLOAD_RESERVATION_INVALID",
        `reservation ${r.uid} is for ${r.type} workloads, not ${body.type}`,
      );
    if (r.status !== "ACTIVE")
      throw new ApiError("WORKLOAD_RESERVATION_INVALID", `reservation ${r.uid} is ${r.status}, not ACTIVE`);
    if (body.type === "BM" && r.region !== body.region) {
      throw new ApiError(
        "WORKLOAD_BM_RESERVATION_REGION_MISMATCH",
        `reservation ${r.uid} is in region ${r.region}, the workload's region is ${body.region}`,
      );
    }
    if (r.resource_name !== body.resource_name) {
      throw new ApiError(
        "WORKLOAD_RESERVATION_INVALID",
        `reservation ${r.uid} is for resource ${r.resource_name}, not ${body.resource_name}`,
      );
    }
    for (const w of this.store.workloads.list(org)) {
      if (w.uid !== self && w.reservation_uid === r.uid && isLive(w)) {
        throw new ApiError(
          "WORKLOAD_RESERVATION_INVALID",
          `reservation ${r.uid} is already bound to workload ${w.uid}`,
        );
      }
    }
  }

  /** The READY sandbox template a SANDBOX workload names in `image`. */
  sandboxTemplate(org: string, uid: string): SandboxTemplateRecord {
    const t = this.store.sandboxTemplates.getIn(org, uid, true);
    if (!t)
      throw new ApiError(
        "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND",
        `image ${uid} is not a sandbox template UID (see GET /orgs/{org}/sandbox-templates)`,
      );
    if (t.status !== "READY")
      throw new ApiError(
        "WORKLOAD_SANDBOX_TEMPLATE_NOT_READY",
        `sandbox template ${uid} is ${t.status}, not READY`,
      );
    return t;
  }
}
