// The sandbox timers: idle timeouts, TTLs, sandboxes that stopped on their own, expired access
// tickets and orphan snapshots, checked in one periodic sweep.

import type { Lifecycle } from "../workloads/lifecycle.ts";
import type { Clock } from "../common/util.ts";
import type { Store } from "../store/store.ts";
import type { SandboxPools, Target } from "./pools.ts";
import type { Snapshots } from "./snapshots.ts";
import type { AccessTickets } from "./tickets.ts";

/** How often idle timeouts, TTLs, crashed sandboxes and expired tickets are checked. */
export const SWEEP_INTERVAL_MS = 500;
/** Every this many sweeps, snapshot directories of deleted or failed templates are removed. */
const SWEEPS_PER_SNAPSHOT_COLLECTION = 20;

export interface SandboxTimerDeps {
  pools: SandboxPools;
  store: Store;
  lc: Lifecycle;
  tickets: AccessTickets;
  snapshots: Snapshots;
  clock: Clock;
  log(line: string): void;
  /** Freezes a running sandbox, recording why (the sandbox service's freeze). */
  freeze(t: Target, reason: string, message: string): Promise<void>;
}

/**
 * The sandbox timers, one sweep every SWEEP_INTERVAL_MS: a sandbox that stopped on its own puts
 * its workload in error, one past its ttl_sec is deleted, one idle for idle_timeout_sec is
 * frozen; expired access tickets are dropped and, now and then, orphan snapshots removed.
 */
export class SandboxTimers {
  private readonly d: SandboxTimerDeps;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private sweeps = 0;
  private stopped = false;

  constructor(deps: SandboxTimerDeps) {
    this.d = deps;
  }

  start(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    const { pools, store, lc } = this.d;
    try {
      const now = Date.now();
      for (const live of [...pools.live.values()]) {
        const w = store.workloads.get(live.uid);
        if (!w || w.status === "deleted" || w.status === "provisioning") continue;
        const cfg = w.sandbox_config;
        try {
          if (pools.runtimeState(live) === "stopped") {
            await pools.teardown(live);
            lc.transition(w, "error", {
              reason: "SandboxStopped",
              message: "the sandbox stopped unexpectedly; deploy it again",
            });
            continue;
          }
          if (cfg && cfg.ttl_sec > 0 && now - live.deployedAt >= cfg.ttl_sec * 1000) {
            lc.recordEvent(w, {
              event_type: "TTL_EXPIRED",
              reason: "TtlExpired",
              message: `sandbox reached its ttl_sec of ${cfg.ttl_sec} s and is deleted`,
            });
            await lc.delete(w);
            continue;
          }
          if (cfg && cfg.idle_timeout_sec > 0 && w.status === "running" && live.busy === 0) {
            const rt = pools.runtimes[live.pool];
            const last = Math.max(rt.lastActivity(live.id), live.activity);
            if (now - last >= cfg.idle_timeout_sec * 1000) {
              await this.d.freeze(
                { w, live, rt },
                "IdleTimeout",
                `sandbox frozen after ${cfg.idle_timeout_sec} s without activity`,
              );
            }
          }
        } catch (e) {
          this.d.log(`sandbox ${live.uid}: timer action failed: ${(e as Error).message}`);
        }
      }
      this.d.tickets.sweep(this.d.clock.now());
      if (++this.sweeps % SWEEPS_PER_SNAPSHOT_COLLECTION === 0) await this.d.snapshots.collect(store);
    } finally {
      this.sweeping = false;
    }
  }
}
