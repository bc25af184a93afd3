import type { InventoryStock, WorkloadStatus } from "../../api/index.ts";
import { ApiError } from "../http/errors.ts";
import type { WorkloadRecord } from "../store/records.ts";
import { inventoryItem, type InventoryItem } from "../seed/schema.ts";
import type { Store } from "../store/store.ts";

/** Statuses in which a workload holds an inventory unit. */
export const HOLDING: readonly WorkloadStatus[] = ["provisioning", "running", "frozen"];

/**
 * Inventory capacity: which workloads hold a unit of each resource now (reservation-bound
 * workloads use their reservation instead), and whether a deploy still fits. The capacity of an
 * item is the seed's unless the admin API set another at run time (`setCapacity`): kept in memory,
 * like faults and rate limits, until an admin reset or a restart.
 */
export class Capacity {
  private readonly store: Store;
  private readonly holders = new Map<string, Set<string>>();
  /** Capacities set through the admin API (null: unlimited), by resource name. */
  private readonly overrides = new Map<string, number | null>();

  constructor(store: Store) {
    this.store = store;
  }

  /** Forgets who holds what (the lifecycle then counts again). */
  clear(): void {
    this.holders.clear();
  }

  /** Back to the seed's capacities (admin reset). */
  resetCapacities(): void {
    this.overrides.clear();
  }

  /** The capacities set at run time, for a snapshot (server/admin/state.ts). */
  saveCapacities(): [name: string, capacity: number | null][] {
    return [...this.overrides];
  }

  /** Replaces the capacities set at run time with those `saveCapacities` gave. */
  restoreCapacities(saved: readonly [string, number | null][]): void {
    this.overrides.clear();
    for (const [name, capacity] of saved) this.overrides.set(name, capacity);
  }

  /** Units of a resource held now. */
  used(resourceName: string): number {
    return this.holders.get(resourceName)?.size ?? 0;
  }

  /** The capacity of an item in force: the admin's, else the seed's (undefined: unlimited). */
  capacityOf(item: InventoryItem): number | undefined {
    if (this.overrides.has(item.name)) return this.overrides.get(item.name) ?? undefined;
    return item.capacity;
  }

  /**
   * Sets the capacity of the inventory resource `name` (null: the seed's again); 404
   * INVENTORY_NOT_FOUND for a name the inventory does not have.
   */
  setCapacity(name: string, capacity: number | null): InventoryStock {
    const item = inventoryItem(this.store.seed, name);
    if (!item) throw new ApiError("INVENTORY_NOT_FOUND", `${name} is not an inventory resource`);
    if (capacity === null) this.overrides.delete(name);
    else this.overrides.set(name, capacity);
    return this.stock(item);
  }

  /** An item as the admin inventory lists it: capacity in force, where it comes from, units held and free. */
  stock(item: InventoryItem): InventoryStock {
    const capacity = this.capacityOf(item);
    const inUse = this.used(item.name);
    return {
      name: item.name,
      type: item.type,
      display_name: item.display_name,
      region: item.region ?? null,
      capacity: capacity ?? null,
      source: this.overrides.has(item.name) ? "admin" : "seed",
      in_use: inUse,
      free: capacity === undefined ? null : Math.max(0, capacity - inUse),
    };
  }

  /** Every inventory resource, in the seed's order. */
  inventory(): InventoryStock[] {
    return this.store.seed.inventory.map((i) => this.stock(i));
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
    const capacity = this.capacityOf(item);
    if (w.type === "BM") {
      const inRegion = item.region === undefined || item.region === w.region;
      const free = inRegion ? (capacity ?? Infinity) - this.used(item.name) : 0;
      if (free <= 0) {
        throw new ApiError(
          "WORKLOAD_BM_CLAIM_CONFLICT",
          `no bare-metal capacity for ${item.name} in region ${w.region}: nothing was claimed, deploy again later or pick another region`,
        );
      }
      return;
    }
    if (capacity !== undefined && this.used(item.name) >= capacity) {
      if (w.type === "SANDBOX")
        throw new ApiError("WORKLOAD_SANDBOX_NO_CAPACITY", `no sandbox capacity left for ${item.name}`);
      throw new ApiError(
        "WORKLOAD_NO_CAPACITY",
        `no capacity left for resource ${item.name} (${this.used(item.name)} of ${capacity} in use)`,
      );
    }
  }
}
