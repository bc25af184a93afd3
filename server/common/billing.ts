import { inventoryItem } from "../seed/schema.ts";
import type { VolumeRecord, WorkloadRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/** Credits of an organization (set by the admin API, else the seed's) and what workloads and volumes cost. */

export function credits(store: Store, org: string): number {
  return store.kvGet<number>(`credits:${org}`) ?? store.seed.orgs.find((o) => o.slug === org)?.credits ?? 0;
}

export function setCredits(store: Store, org: string, balance: number): void {
  store.kvSet(`credits:${org}`, balance);
}

/** USD per hour of a workload: its sandbox template's price, else its inventory item's. */
export function costPerHour(store: Store, w: WorkloadRecord): number {
  if (w.type === "SANDBOX") {
    const t = w.sandbox_config ? store.sandboxTemplates.get(w.sandbox_config.template_uid) : undefined;
    if (t) return t.cost_per_hour;
  }
  return inventoryItem(store.seed, w.resource_name)?.cost_per_hour ?? 0;
}

/** USD per hour of a volume, by its size. */
export function volumeCostPerHour(store: Store, v: VolumeRecord): number {
  const rate = store.seed.volume_cost_per_gib_hour ?? 0.00014;
  return Math.round((v.size / 1024) * rate * 1e6) / 1e6;
}
