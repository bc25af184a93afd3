import { orgExists } from "../http/auth.ts";
import { credits, setCredits } from "../common/billing.ts";
import type { SnapshotInfo, SnapshotRestored } from "../../api/index.ts";
import { ApiError } from "../http/errors.ts";
import { versionInfo } from "../meta/version.ts";
import { inventoryItem } from "../seed/schema.ts";
import { Snapshots } from "./snapshots.ts";
import { stateParts, type StateDeps, type StatePart } from "./state.ts";

/** What the admin surface acts on: the store, the workloads' lifecycle, the injected faults and the rate limits. */
export type AdminDeps = StateDeps;

/**
 * The admin surface's operations (under /admin, its own token): reset to the seed, inspection,
 * credits, inventory capacity. Provisioning rules are lifecycle.rules, faults ctx.faults; both are per organization
 * of the seed (404 ORG_NOT_FOUND otherwise).
 */
export class AdminService {
  private readonly d: AdminDeps;
  /** The kinds of state a reset drops and a snapshot holds (state.ts). */
  private readonly parts: readonly StatePart[];
  readonly snapshots: Snapshots;

  constructor(deps: AdminDeps) {
    this.d = deps;
    this.parts = stateParts(deps);
    this.snapshots = new Snapshots({
      store: deps.store,
      parts: this.parts,
      serverVersion: versionInfo().version,
      now: () => deps.lc.now(),
    });
  }

  /** The organization `slug` of the seed, or 404 ORG_NOT_FOUND. */
  org(slug: string): string {
    if (!orgExists(this.d.store, slug))
      throw new ApiError("ORG_NOT_FOUND", `organization ${slug} is not in the seed`);
    return slug;
  }

  /**
   * Back to the seed: runtimes (sandboxes and their published files, timers) stopped, every part
   * of the state (state.ts: records, events, credits, faults, rules, run-time rate limits and
   * inventory capacities) put back to the seed.
   */
  async reset(): Promise<void> {
    await this.d.lc.hooks.onReset?.();
    this.replaceState((p) => p.reset());
  }

  /** Saves the whole state under `name` (snapshots.ts). */
  saveSnapshot(name: string): SnapshotInfo {
    return this.snapshots.save(name);
  }

  /**
   * Replaces the whole state with the snapshot `name`'s: refused (404, 409) before anything
   * changes; then every running sandbox is stopped (published template files stay), and every
   * part is replaced in one synchronous step, so a request sees the state before or after, never
   * a mix. A part the snapshot lacks (saved by an older server) is reset to the seed. The
   * snapshot's running or frozen sandboxes come back in `error` (the lifecycle's afterRestore).
   */
  async restoreSnapshot(name: string): Promise<SnapshotRestored> {
    const snap = this.snapshots.load(name);
    await this.d.lc.hooks.onRestore?.();
    const started = performance.now();
    this.replaceState((p) => (p.name in snap.parts ? p.restore(snap.parts[p.name]) : p.reset()));
    this.d.lc.hooks.afterRestore?.();
    return { status: "restored", snapshot: snap.info, restore_ms: performance.now() - started };
  }

  /** Stops the timers, replaces each part with `fn`, then starts the lifecycle on the new state (as at startup). */
  private replaceState(fn: (p: StatePart) => void): void {
    this.d.lc.resetRuntime();
    for (const p of this.parts) fn(p);
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
