import { orgExists } from "../http/auth.ts";
import { credits, setCredits } from "../common/billing.ts";
import type { Faults } from "../http/faults.ts";
import { ApiError } from "../http/errors.ts";
import type { Lifecycle } from "../workloads/lifecycle.ts";
import type { Store } from "../store/store.ts";
import { applySeed } from "../seed/apply.ts";

/**
 * The admin surface's operations (under /admin, its own token): reset to the seed, inspection,
 * credits. Provisioning rules are lifecycle.rules, faults ctx.faults; both are per organization
 * of the seed (404 ORG_NOT_FOUND otherwise).
 */
export class AdminService {
  private readonly store: Store;
  private readonly lc: Lifecycle;
  private readonly faults: Faults;

  constructor(store: Store, lc: Lifecycle, faults: Faults) {
    this.store = store;
    this.lc = lc;
    this.faults = faults;
  }

  /** The organization `slug` of the seed, or 404 ORG_NOT_FOUND. */
  org(slug: string): string {
    if (!orgExists(this.store, slug))
      throw new ApiError("ORG_NOT_FOUND", `organization ${slug} is not in the seed`);
    return slug;
  }

  /** Back to the seed: runtimes (sandboxes, timers, rules) stopped, every record and fault dropped. */
  async reset(): Promise<void> {
    const seed = this.store.seed;
    await this.lc.hooks.onReset?.();
    this.lc.resetRuntime();
    this.store.wipe();
    applySeed(this.store, seed, this.lc.now());
    this.faults.clear();
    this.lc.start();
  }

  /** What an organization holds, for the admin inspection (deleted workloads and FRESH templates left out). */
  resources(org: string) {
    const store = this.store;
    return {
      workloads: store.workloads.list(org).filter((w) => w.status !== "deleted"),
      volumes: store.volumes.list(org),
      sshKeys: store.sshKeys.list(org),
      workloadTemplates: store.templates.list(org),
      sandboxTemplates: store.sandboxTemplates.list(org).filter((t) => t.kind === "USER"),
    };
  }

  credits(org: string): number {
    return credits(this.store, org);
  }

  setCredits(org: string, balance: number): number {
    setCredits(this.store, org, balance);
    return credits(this.store, org);
  }
}
