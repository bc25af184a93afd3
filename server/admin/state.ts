import type { Fault } from "../../api/index.ts";
import type { Faults } from "../http/faults.ts";
import type { RateLimits, SavedRateLimits } from "../http/rate-limit.ts";
import { applySeed } from "../seed/apply.ts";
import type { StoreImage } from "../store/image.ts";
import type { Store } from "../store/store.ts";
import type { Lifecycle } from "../workloads/lifecycle.ts";
import type { ProvisioningRule } from "../workloads/provisioning-rules.ts";

/**
 * One kind of the server's state: what an admin reset puts back to the seed and what a snapshot
 * holds. Both go through the list `stateParts` makes, so that no kind is in one and not in the
 * other: a new kind of state is a new part here.
 */
export interface StatePart<T = unknown> {
  /** Its key in a snapshot's `parts`. */
  name: string;
  /** Back to the seed (admin reset; a restore of a snapshot that lacks the part). */
  reset(): void;
  /** What a snapshot keeps of it (JSON). */
  save(): T;
  /** Puts back what `save` gave. */
  restore(saved: T): void;
}

export interface StateDeps {
  store: Store;
  lc: Lifecycle;
  faults: Faults;
  rateLimits: RateLimits;
}

const part = <T>(p: StatePart<T>) => p as StatePart<unknown>;

/**
 * The parts of the state, in the order they are reset and restored. What is not here is derived
 * from them (inventory units held, provisioning timers: Lifecycle.start) or lives outside the
 * state (running sandboxes: the lifecycle's onReset and onRestore hooks).
 */
export function stateParts(d: StateDeps): StatePart[] {
  const { store, lc } = d;
  return [
    // Every org's documents (workloads, volumes, SSH keys, templates, an extension's), their
    // events, credits and the seed: the store's rows.
    part<StoreImage>({
      name: "store",
      reset: () => {
        const seed = store.seed;
        store.wipe();
        applySeed(store, seed, lc.now());
      },
      save: () => store.image(),
      restore: (image) => store.restoreImage(image),
    }),
    part<Fault[]>({
      name: "faults",
      reset: () => d.faults.clear(),
      save: () => d.faults.save(),
      restore: (saved) => d.faults.restore(saved),
    }),
    part<Record<string, ProvisioningRule[]>>({
      name: "provisioning_rules",
      reset: () => lc.rules.reset(),
      save: () => lc.rules.save(),
      restore: (saved) => lc.rules.restore(saved),
    }),
    part<[string, number | null][]>({
      name: "inventory_capacities",
      reset: () => lc.capacity.resetCapacities(),
      save: () => lc.capacity.saveCapacities(),
      restore: (saved) => lc.capacity.restoreCapacities(saved),
    }),
    part<SavedRateLimits>({
      name: "rate_limits",
      reset: () => d.rateLimits.reset(),
      save: () => d.rateLimits.save(),
      restore: (saved) => d.rateLimits.restore(saved),
    }),
  ];
}
