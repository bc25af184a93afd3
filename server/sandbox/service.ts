import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import type { ServerContext } from "../context.ts";
import { ApiError } from "../http/errors.ts";
import type { SandboxTemplateRecord, WorkloadRecord } from "../records.ts";
import { bubblewrapStatus, SandboxError, SandboxRuntime } from "./runtime.ts";
import { AccessTickets, type Pool } from "./tickets.ts";

/**
 * The sandbox service: two independent sandbox pools (X-Deployment-Type master and shadow), each a
 * SandboxRuntime, and what ties SANDBOX workloads to them: deploy, delete, SSH keys, idle and TTL
 * timers, access tickets, published snapshots. Routes (server/routes/sandbox-*.ts) use it; they
 * translate requests into its calls and runtime failures into API errors (routes/sandbox-errors.ts).
 * Its own rule violations are ApiErrors with the spec's codes, as in the other services.
 *
 * Over 400 lines because deploy and delete hooks, targets, freeze and thaw, publish and the
 * timers all act on the one map of live sandboxes and change together; access tickets are in
 * tickets.ts, HTTP in routes/sandbox-http.ts.
 */

export type { Pool } from "./tickets.ts";
export const POOLS: readonly Pool[] = ["master", "shadow"];

/** How often idle timeouts, TTLs, crashed sandboxes and expired tickets are checked. */
export const SWEEP_INTERVAL_MS = 500;
/** Live terminals per sandbox (429 WORKLOAD_SANDBOX_SESSION_LIMIT beyond). */
export const MAX_TERMINALS = 8;

/** A deployed sandbox (one per SANDBOX workload that is provisioning, running or frozen). */
export interface LiveSandbox {
  uid: string;
  pool: Pool;
  /** Id of the sandbox in its pool's runtime. */
  id: string;
  desktop: boolean;
  /** Resolves once the sandbox runs; rejects if it could not start. */
  starting: Promise<void>;
  /** Date.now() at deploy: the TTL counts from here. */
  deployedAt: number;
  /** Activity the runtime does not see (deploy, thaw, desktop traffic). */
  activity: number;
  /** Requests in progress (exec, files): a sandbox is not idle while one runs. */
  busy: number;
  /** SSH key UID -> public key installed in the guest. */
  keys: Map<string, string>;
  keyLock: Promise<void>;
}

/** Where the target of an operation must be. */
export type Need = "running" | "deployed" | "present";

export interface Target {
  w: WorkloadRecord;
  live: LiveSandbox;
  rt: SandboxRuntime;
}

interface SandboxExt {
  sandbox_pool?: Pool;
}

function extOf(w: WorkloadRecord): SandboxExt {
  return (w.ext ?? {}) as SandboxExt;
}

export class SandboxService {
  readonly ctx: ServerContext;
  readonly rootDir: string;
  readonly runtimes: Record<Pool, SandboxRuntime>;
  readonly live = new Map<string, LiveSandbox>();
  private readonly ownsRoot: boolean;
  /** X-Deployment-Type of the pending deploy request of a workload. */
  private readonly deployPool = new Map<string, Pool | undefined>();
  /** Child workload UID -> parent workload UID, for a deploy that is a fork. */
  private readonly forkOf = new Map<string, string>();
  private readonly tickets: AccessTickets;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private sweeps = 0;
  private closed = false;

  constructor(ctx: ServerContext) {
    this.ctx = ctx;
    this.tickets = new AccessTickets(ctx.clock);
    this.ownsRoot = !ctx.options.sandboxRoot;
    // Without sandboxRoot: a private temporary directory, created by the first sandbox (so that a
    // server that runs none leaves nothing behind) and removed on close.
    this.rootDir = ctx.options.sandboxRoot
      ? path.resolve(ctx.options.sandboxRoot)
      : path.join(os.tmpdir(), `cws-sandboxes-${process.pid}-${randomBytes(8).toString("hex")}`);
    this.runtimes = {
      master: new SandboxRuntime({ rootDir: path.join(this.rootDir, "master"), maxTerminals: MAX_TERMINALS }),
      shadow: new SandboxRuntime({ rootDir: path.join(this.rootDir, "shadow"), maxTerminals: MAX_TERMINALS }),
    };
  }

  private get lc() {
    return this.ctx.lifecycle;
  }

  private get store() {
    return this.ctx.store;
  }

  private readonly deployHook = (w: WorkloadRecord): Promise<void> => this.onDeploy(w);

  /**
   * Whether this module runs SANDBOX workloads: true unless a module registered later replaced
   * lifecycle.hooks.onDeploy, in which case the sandbox routes and WebSockets step aside for it.
   */
  active(): boolean {
    return this.lc.hooks.onDeploy === this.deployHook;
  }

  /** Sets the lifecycle hooks, marks sandboxes lost by a restart, starts the sweeper. */
  install(): void {
    const hooks = this.lc.hooks;
    hooks.admitDeploy = (w) => this.admitDeploy(w);
    hooks.onDeploy = this.deployHook;
    hooks.onDelete = (w) => this.onDelete(w);
    hooks.onUpdate = (_before, after) => this.onUpdate(after);
    hooks.onReset = () => this.reset();
    this.reconcile();
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  /** Running or frozen sandboxes of a previous server process have no runtime any more. */
  private reconcile(): void {
    for (const w of this.store.workloads.all()) {
      if (w.type !== "SANDBOX" || (w.status !== "running" && w.status !== "frozen")) continue;
      this.lc.transition(w, "error", {
        reason: "SandboxLost",
        message: "the sandbox's environment was lost when the server restarted; deploy it again",
      });
    }
  }

  // ---- pools ------------------------------------------------------------------------------

  poolOf(deploymentType: string | undefined): Pool {
    return deploymentType === "shadow" ? "shadow" : "master";
  }

  /** Called by the deploy route before the lifecycle runs: the pool the request asked for. */
  noteDeployPool(uid: string, deploymentType: Pool | undefined): void {
    if (deploymentType) this.deployPool.set(uid, deploymentType);
    else this.deployPool.delete(uid);
  }

  noteFork(childUid: string, parentUid: string, pool: Pool): void {
    this.forkOf.set(childUid, parentUid);
    this.deployPool.set(childUid, pool);
  }

  forgetFork(childUid: string): void {
    this.forkOf.delete(childUid);
    this.deployPool.delete(childUid);
  }

  // ---- targets ----------------------------------------------------------------------------

  /**
   * The sandbox an operation acts on, or the API error saying why not: 404 WORKLOAD_NOT_FOUND,
   * 400 WORKLOAD_OPERATION_UNSUPPORTED (not a sandbox), 409 WORKLOAD_SANDBOX_NOT_DEPLOYED,
   * 409 WORKLOAD_SANDBOX_UNAVAILABLE (still provisioning), 404 WORKLOAD_SANDBOX_TARGET_NOT_FOUND
   * (no runtime in the request's pool), 409 WORKLOAD_SANDBOX_INVALID_STATE (frozen, when it must run).
   */
  target(org: string, uid: string, pool: Pool, action: string, need: Need): Target {
    const w = this.sandboxWorkload(org, uid, action);
    const deployed = w.status === "running" || w.status === "frozen";
    if (!deployed && !(need === "present" && w.status === "provisioning")) {
      if (w.status === "provisioning")
        throw new ApiError(
          "WORKLOAD_SANDBOX_UNAVAILABLE",
          `cannot ${action} sandbox ${uid}: it is still provisioning; poll its state until running`,
        );
      throw new ApiError(
        "WORKLOAD_SANDBOX_NOT_DEPLOYED",
        `cannot ${action} sandbox ${uid}: it is not deployed (status ${w.status}); deploy it and wait for running`,
      );
    }
    const live = this.live.get(uid);
    if (!live || live.pool !== pool)
      throw new ApiError(
        "WORKLOAD_SANDBOX_TARGET_NOT_FOUND",
        `sandbox ${uid} has no runtime in the ${pool} deployment (X-Deployment-Type selects the deployment)`,
      );
    if (need === "running" && w.status === "frozen")
      throw new ApiError(
        "WORKLOAD_SANDBOX_INVALID_STATE",
        `cannot ${action} sandbox ${uid}: it is frozen; thaw it first`,
      );
    return { w, live, rt: this.runtimes[live.pool] };
  }

  /** The org's SANDBOX workload (404 / 400 otherwise). */
  sandboxWorkload(org: string, uid: string, action: string): WorkloadRecord {
    const w = this.store.workloads.getIn(org, uid);
    if (!w) throw new ApiError("WORKLOAD_NOT_FOUND", `workload ${uid} not found`);
    if (w.type !== "SANDBOX")
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `${action} is only supported for SANDBOX workloads (workload ${uid} is ${w.type})`,
      );
    return w;
  }

  template(w: WorkloadRecord): SandboxTemplateRecord | undefined {
    const uid = w.sandbox_config?.template_uid;
    return uid ? this.store.sandboxTemplates.get(uid) : undefined;
  }

  snapshotDir(templateUid: string): string {
    return path.join(this.rootDir, "templates", templateUid);
  }

  /** Creates the sandbox root (private to the server's user) if needed. */
  private async ensureRoot(): Promise<void> {
    await fsp.mkdir(this.rootDir, { recursive: true, mode: 0o700 });
  }

  private hasSnapshot(t: SandboxTemplateRecord): boolean {
    return fs.existsSync(path.join(this.snapshotDir(t.uid), "cws-snapshot.json"));
  }

  // ---- lifecycle hooks --------------------------------------------------------------------

  private admitDeploy(w: WorkloadRecord): void {
    const status = bubblewrapStatus();
    if (!status.available)
      throw new ApiError(
        "WORKLOAD_SANDBOX_NO_CAPACITY",
        `no sandbox capacity: sandboxes cannot run on this host (${status.reason ?? "bubblewrap is not available"})`,
      );
    if (this.closed)
      throw new ApiError("WORKLOAD_SANDBOX_NO_CAPACITY", "no sandbox capacity: the server is shutting down");
    if (!this.forkOf.has(w.uid)) {
      const t = this.template(w);
      if (!t)
        throw new ApiError(
          "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND",
          `sandbox template ${w.sandbox_config?.template_uid} of sandbox ${w.uid} no longer exists`,
        );
      if (t.status !== "READY" || (t.kind === "USER" && !this.hasSnapshot(t)))
        throw new ApiError(
          "WORKLOAD_SANDBOX_TEMPLATE_NOT_READY",
          t.status !== "READY"
            ? `sandbox template ${t.uid} is ${t.status}, not READY`
            : `the files of sandbox template ${t.uid} are no longer on this server; publish it again`,
        );
    }
    const pool = this.deployPool.get(w.uid) ?? (w.deployment_type as Pool | undefined) ?? "master";
    this.deployPool.delete(w.uid);
    w.ext = { ...w.ext, sandbox_pool: pool };
  }

  private async onDeploy(w: WorkloadRecord): Promise<void> {
    const pool = extOf(w).sandbox_pool ?? "master";
    const parentUid = this.forkOf.get(w.uid);
    this.forkOf.delete(w.uid);
    const rt = this.runtimes[pool];
    const t = this.template(w);
    const desktop = Boolean(t?.desktop);
    const old = this.live.get(w.uid);
    const now = Date.now();
    const live: LiveSandbox = {
      uid: w.uid,
      pool,
      id: w.uid,
      desktop,
      starting: Promise.resolve(),
      deployedAt: now,
      activity: now,
      busy: 0,
      keys: new Map(),
      keyLock: Promise.resolve(),
    };
    // Registered at once, so that a delete arriving meanwhile waits for the start and destroys it.
    this.live.set(w.uid, live);
    live.starting = (async () => {
      await this.ensureRoot();
      if (old) await this.teardown(old);
      // Files left by an earlier life of this workload (e.g. a server killed without cleanup).
      await rt.destroy(live.id).catch(() => {});
      if (this.live.get(w.uid) !== live) throw new Error("deploy superseded");
      if (parentUid) {
        const parent = this.live.get(parentUid);
        if (!parent || parent.pool !== pool)
          throw new Error(`fork failed: parent sandbox ${parentUid} is no longer deployed`);
        await rt.fork(parent.id, live.id, { hostname: w.name, desktop });
      } else {
        await rt.start(live.id, {
          hostname: w.name,
          desktop,
          fromSnapshot: t?.kind === "USER" ? this.snapshotDir(t.uid) : undefined,
        });
      }
    })();
    live.starting.catch(() => {});
    try {
      await live.starting;
      await this.syncKeys(w, live);
    } catch (e) {
      if (this.live.get(w.uid) === live) {
        this.live.delete(w.uid);
        await rt.destroy(live.id).catch(() => {});
      }
      throw new Error(`sandbox failed to start: ${(e as Error).message}`, { cause: e });
    }
    live.activity = Date.now();
  }

  private async onDelete(w: WorkloadRecord): Promise<void> {
    this.forgetFork(w.uid);
    this.tickets.forgetWorkload(w.uid);
    const live = this.live.get(w.uid);
    if (live) await this.teardown(live);
  }

  private async teardown(live: LiveSandbox): Promise<void> {
    if (this.live.get(live.uid) === live) this.live.delete(live.uid);
    await live.starting.catch(() => {});
    try {
      await this.runtimes[live.pool].destroy(live.id);
    } catch (e) {
      if (!(e instanceof SandboxError && e.code === "NOT_FOUND")) throw e;
    }
  }

  private async onUpdate(w: WorkloadRecord): Promise<void> {
    const live = this.live.get(w.uid);
    if (!live || w.status !== "running") return; // frozen: keys are synced at thaw
    try {
      await this.syncKeys(w, live);
    } catch (e) {
      this.ctx.log(`sandbox ${w.uid}: SSH keys not synced: ${(e as Error).message}`);
    }
  }

  /** Makes the guest's authorized_keys hold exactly the workload's SSH keys. */
  syncKeys(w: WorkloadRecord, live: LiveSandbox): Promise<void> {
    const run = async () => {
      const rt = this.runtimes[live.pool];
      const want = new Map<string, string>();
      for (const uid of w.ssh_keys) {
        const key = live.keys.get(uid) ?? this.store.sshKeys.get(uid)?.public_key_raw;
        if (key) want.set(uid, key);
      }
      for (const [uid, key] of want) {
        if (live.keys.has(uid)) continue;
        await rt.installSshKey(live.id, key);
        live.keys.set(uid, key);
      }
      for (const [uid, key] of [...live.keys]) {
        if (want.has(uid)) continue;
        if (![...want.values()].includes(key)) await rt.removeSshKey(live.id, key);
        live.keys.delete(uid);
      }
    };
    const p = live.keyLock.then(run, run);
    live.keyLock = p.catch(() => {});
    return p;
  }

  /** Runs an operation on the sandbox; it counts as activity for the idle timeout while it runs. */
  async busy<T>(t: Target, fn: () => Promise<T>): Promise<T> {
    t.live.busy++;
    try {
      return await fn();
    } finally {
      t.live.busy--;
      t.live.activity = Date.now();
    }
  }

  // ---- freeze / thaw ----------------------------------------------------------------------

  async freeze(
    t: Target,
    reason = "Freeze",
    message = "sandbox frozen: processes stopped, files kept",
  ): Promise<void> {
    if (t.w.status !== "running")
      throw new ApiError(
        "WORKLOAD_SANDBOX_INVALID_STATE",
        `cannot freeze sandbox ${t.w.uid}: its status is ${t.w.status}, not running`,
      );
    await t.rt.freeze(t.live.id);
    const cur = this.store.workloads.get(t.w.uid);
    if (cur && cur.status === "running") this.lc.transition(cur, "frozen", { reason, message });
  }

  async thaw(t: Target): Promise<void> {
    if (t.w.status !== "frozen")
      throw new ApiError(
        "WORKLOAD_SANDBOX_INVALID_STATE",
        `cannot thaw sandbox ${t.w.uid}: its status is ${t.w.status}, not frozen`,
      );
    await t.rt.thaw(t.live.id);
    t.live.activity = Date.now();
    const cur = this.store.workloads.get(t.w.uid);
    if (cur && cur.status === "frozen")
      this.lc.transition(cur, "running", { reason: "Thaw", message: "sandbox thawed: processes resumed" });
    if (cur) await this.onUpdate(cur);
  }

  // ---- publish ----------------------------------------------------------------------------

  /** Snapshots the sandbox's files into the template's directory; the template becomes READY or FAILED. */
  publish(t: Target, tpl: SandboxTemplateRecord): void {
    const dir = this.snapshotDir(tpl.uid);
    void (async () => {
      let status: "READY" | "FAILED" = "READY";
      try {
        await this.ensureRoot();
        await fsp.rm(dir, { recursive: true, force: true });
        await t.rt.snapshot(t.live.id, dir);
      } catch (e) {
        status = "FAILED";
        this.ctx.log(`publish of ${t.w.uid} as ${tpl.uid} failed: ${(e as Error).message}`);
      }
      const cur = this.store.sandboxTemplates.get(tpl.uid);
      if (!cur) return;
      cur.status = status;
      cur.updated_at = this.lc.now();
      this.store.sandboxTemplates.put(cur);
    })();
  }

  // ---- tickets ----------------------------------------------------------------------------

  mintTicket(org: string, uid: string, pool: Pool, ttlSec: number): { ticket: string; expires_at: string } {
    return this.tickets.mint(org, uid, pool, ttlSec);
  }

  /** Consumes a ticket (whatever the outcome) and returns its pool; 401 when it does not admit org/uid now. */
  consumeTicket(ticket: string, org: string, uid: string): Pool {
    return this.tickets.consume(ticket, org, uid);
  }

  runtimeState(live: LiveSandbox): string | undefined {
    try {
      return this.runtimes[live.pool].state(live.id);
    } catch {
      return undefined;
    }
  }

  // ---- timers -----------------------------------------------------------------------------

  /** Idle timeouts (freeze), TTLs (delete), crashed sandboxes (error), expired tickets, orphan snapshots. */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.closed) return;
    this.sweeping = true;
    try {
      const now = Date.now();
      for (const live of [...this.live.values()]) {
        const w = this.store.workloads.get(live.uid);
        if (!w || w.status === "deleted" || w.status === "provisioning") continue;
        const cfg = w.sandbox_config;
        try {
          if (this.runtimeState(live) === "stopped") {
            await this.teardown(live);
            this.lc.transition(w, "error", {
              reason: "SandboxStopped",
              message: "the sandbox stopped unexpectedly; deploy it again",
            });
            continue;
          }
          if (cfg && cfg.ttl_sec > 0 && now - live.deployedAt >= cfg.ttl_sec * 1000) {
            this.lc.recordEvent(w, {
              event_type: "TTL_EXPIRED",
              reason: "TtlExpired",
              message: `sandbox reached its ttl_sec of ${cfg.ttl_sec} s and is deleted`,
            });
            await this.lc.delete(w);
            continue;
          }
          if (cfg && cfg.idle_timeout_sec > 0 && w.status === "running" && live.busy === 0) {
            const rt = this.runtimes[live.pool];
            const last = Math.max(rt.lastActivity(live.id), live.activity);
            if (now - last >= cfg.idle_timeout_sec * 1000) {
              await this.freeze(
                { w, live, rt },
                "IdleTimeout",
                `sandbox frozen after ${cfg.idle_timeout_sec} s without activity`,
              );
            }
          }
        } catch (e) {
          this.ctx.log(`sandbox ${live.uid}: timer action failed: ${(e as Error).message}`);
        }
      }
      const clock = this.ctx.clock.now();
      this.tickets.sweep(clock);
      if (++this.sweeps % 20 === 0) await this.collectSnapshots();
    } finally {
      this.sweeping = false;
    }
  }

  /** Removes snapshot directories whose USER template was deleted or failed. */
  private async collectSnapshots(): Promise<void> {
    const dir = path.join(this.rootDir, "templates");
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const t = this.store.sandboxTemplates.get(name);
      if (t && t.status !== "FAILED") continue;
      await fsp.rm(path.join(dir, name), { recursive: true, force: true }).catch(() => {});
    }
  }

  // ---- reset / close ----------------------------------------------------------------------

  private async destroyAll(): Promise<void> {
    const all = [...this.live.values()];
    await Promise.all(all.map((l) => this.teardown(l).catch(() => {})));
    this.live.clear();
    this.tickets.clear();
    this.forkOf.clear();
    this.deployPool.clear();
  }

  private async reset(): Promise<void> {
    await this.destroyAll();
    await fsp.rm(path.join(this.rootDir, "templates"), { recursive: true, force: true });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.destroyAll();
    await Promise.all(POOLS.map((p) => this.runtimes[p].shutdown()));
    if (this.ownsRoot) await fsp.rm(this.rootDir, { recursive: true, force: true });
  }
}
