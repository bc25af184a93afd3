import { orgExists } from "../http/auth.ts";
import { credits, setCredits } from "../common/billing.ts";
import type { Faults } from "../http/faults.ts";
import { ApiError } from "../http/errors.ts";
import type { Lifecycle } from "../workloads/lifecycle.ts";
import type { Store } from "../store/store.ts";
import { applySeed } from "../seed/apply.ts";
import { inventoryItem } from "../seed/schema.ts";

/** What the admin surface acts on: the store, the workloads' lifecycle and the injected faults. */
export interface AdminDeps {
  store: Store;
  lc: Lifecycle;
  faults: Faults;
}

/**
 * The admin surface's operations (under /admin, its own token): reset to the seed, inspection,
 * credits, inventory capacity. Provisioning rules are lifecycle.rules, faults ctx.faults; both are per organization
 * of the seed (404 ORG_NOT_FOUND otherwise).
 */
export class AdminService {
  private readonly d: AdminDeps;

  constructor(deps: AdminDeps) {
    this.d = deps;
  }

  /** The organization `slug` of the seed, or 404 ORG_NOT_FOUND. */
  org(slug: string): string {
    if (!orgExists(this.d.store, slug))
      throw new ApiError("ORG_NOT_FOUND", `organization ${slug} is not in the seed`);
    return slug;
  }

  /**
   * Back to the seed: runtimes (sandboxes, timers, rules) stopped, every record and fault dropped,
   * inventory capacities set at run time forgotten.
   */
  async reset(): Promise<void> {
    const seed = this.d.store.seed;
    await this.d.lc.hooks.onReset?.();
    this.d.lc.resetRuntime();
    this.d.lc.capacity.resetCapacities();
    this.d.store.wipe();
    applySeed(this.d.store, seed, this.d.lc.now());
    this.d.faults.clear();
    this.d.lc.start();
  }

  /** What an organization holds, for the admin inspection (deleted workloads and FRESH templates left out). */
  resources(org: string) {
    const store = this.d.store;
    return {
      workloads: store.workloads.list(org).filter((w) => w.status !== "deleted"),
      volumes: store.volumes.list(org),
      sshKeys: store.sshKeys.list(org),
      workloadTemplates: store.templates.list(org),
      sandboxTemplates: store.sandboxTemplates.list(org).filter((t) => t.kind === "USER"),
    };
  }

  /** Every inventory resource with its capacity in force and the units held (all orgs). */
  inventory() {
    return this.d.lc.capacity.inventory();
  }

  /** One inventory resource's capacity and units held; 404 INVENTORY_NOT_FOUND for an unknown name. */
  stock(resourceName: string) {
    const item = inventoryItem(this.d.store.seed, resourceName);
    if (!item) throw new ApiError("INVENTORY_NOT_FOUND", `${resourceName} is not an inventory resource`);
    return this.d.lc.capacity.stock(item);
  }

  /** Sets an inventory resource's capacity at run time (null: the seed's again). */
  setCapacity(resourceName: string, capacity: number | null) {
    return this.d.lc.capacity.setCapacity(resourceName, capacity);
  }

  credits(org: string): number {
    return credits(this.d.store, org);
  }

  setCredits(org: string, balance: number): number {
    setCredits(this.d.store, org, balance);
    return credits(this.d.store, org);
  }
}
