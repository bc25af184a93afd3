import type { Store } from "../store/store.ts";
import type { Seed } from "./schema.ts";

/** Writes the seed's documents into an empty store (platform templates; credits come from the seed). */
export function applySeed(store: Store, seed: Seed, now: string): void {
  store.transaction(() => {
    store.setSeed(seed);
    for (const t of seed.sandbox_templates) {
      store.sandboxTemplates.put({
        uid: t.uid,
        org: null,
        name: t.name,
        display_name: t.display_name,
        description: t.description,
        kind: "FRESH",
        status: t.status ?? "READY",
        resource_name: t.resource_name,
        cost_per_hour: t.cost_per_hour,
        frozen_cost_per_hour: t.frozen_cost_per_hour,
        desktop: t.desktop,
        created_at: now,
        updated_at: now,
      });
    }
    for (const t of seed.templates) {
      store.templates.put({ ...t, org: null, visibility: "PUBLIC", created_at: now, updated_at: now });
    }
  });
}
