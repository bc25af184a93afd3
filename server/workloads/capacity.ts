import type { WorkloadStatus } from "../../api/index.ts";
import { ApiError } from "../http/errors.ts";
import type { WorkloadRecord } from "../store/records.ts";
import { inventoryItem } from "../seed/schema.ts";
import type { Store } from "../store/store.ts";

/** Statuses in which a workload holds an inventory unit. */
export const HOLDING: readonly WorkloadStatus[] = ["provisioning", "running", "frozen"];

/**
 * Inventory capacity: which workloads hold a unit of each resource now (reservation-bound
 * workloads use their reservation instead), and whether a deploy still fits.
 */
export class Capacity {
  private readonly store: Store;
  private readonly holders = new Map<string, Set<string>>();

  constructor(store: Store) {
    this.store = store;
  }

  clear(): void {
    this.holders.clear();
  }

  /** Units of a resource held now. */
  used(resourceName: string): number {
    return this.holders.get(resourceName)?.size ?? 0;
  }

  /** Records whether w holds a unit now (after a status change). */
  update(w: WorkloadRecord): void {
    const key = w.resource_name;
    const holds = HOLDING.includes(w.status) && !w.reservation_uid;
    let set = this.holders.get(key);
    if (holds) {
      if (!set) this.holders.set(key, (set = new Set()));
      set.add(w.uid);
    } else set?.delete(w.uid);
  }

  /** Throws the API error for a deploy of w that does not fit: unknown resource, no capacity. */
  check(w: WorkloadRecord): void {
    if (w.reservation_uid) return;
    const item = inventoryItem(this.store.seed, w.resource_name);
    if (!item)
      throw new ApiError(
        "WORKLOAD_RESOURCE_NOT_FOUND",
        `resource_name ${w.resource_name} is not in the inventory`,
      );
    if (w.type === "BM") {
      const inRegion = item.region === undefined || item.region === w.region;
      const free = inRegion ? (item.capacity ?? Infinity) - this.used(item.name) : 0;
      if (free <= 0) {
        throw new ApiError(
          "WORKLOAD_BM_CLAIM_CONFLICT",
          `no bare-metal capacity for ${item.name} in region ${w.region}: nothing was claimed, deploy again later or pick another region`,
        );
      }
      return;
    }
    if (item.capacity !== undefined && this.used(item.name) >= item.capacity) {
      if (w.type === "SANDBOX")
        throw new ApiError("WORKLOAD_SANDBOX_NO_CAPACITY", `no sandbox capacity left for ${item.name}`);
      throw new ApiError(
        "WORKLOAD_NO_CAPACITY",
        `no capacity left for resource ${item.name} (${item.capacity} in use)`,
      );
    }
  }
}
