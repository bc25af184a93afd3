/**
 * The sandbox service: what ties SANDBOX workloads to running sandboxes. It sets the lifecycle
 * hooks (deploy, delete, update), finds the sandbox an operation targets and checks where it
 * must be, freezes and thaws, forks and publishes, and mints access tickets. The routes
 * (routes/) translate requests into its calls and runtime failures into API errors
 * (routes/common.ts); its own rule violations are ApiErrors with the spec's codes, as in the
 * other services. The sandboxes themselves are in pools.ts (over the runtime in runtime/), the
 * rules of what a request may act on in targets.ts, the timers in timers.ts, published files in
 * snapshots.ts, tickets in tickets.ts.
 */
import {
  LIMITS,
  nameViolation,
  type ForkBody,
  type PublishBody,
  type WorkloadCreate,
} from "../../api/index.ts";
import type { ServerContext } from "../context.ts";
import { ApiError, violationError } from "../http/errors.ts";
import type { SandboxTemplateRecord, WorkloadRecord } from "../store/records.ts";
import { SandboxPools, type LiveSandbox, type Pool, type Target } from "./pools.ts";
import { bubblewrapStatus } from "./runtime/index.ts";
import { Snapshots } from "./snapshots.ts";
import type { SandboxTemplateService } from "../templates/sandbox-templates.ts";
import { AccessTickets } from "./tickets.ts";
import { SandboxTargets, type Need } from "./targets.ts";
import { SandboxTimers } from "./timers.ts";

/** Name of a fork made without a name: `{parent}-fork`, the parent's part cut to keep 32 characters. */
export function forkName(parent: string): string {
  const suffix = "-fork";
  const base = parent.slice(0, LIMITS.workloadNameMax - suffix.length).replace(/-+$/, "");
  return `${base}${suffix}`;
}

/** 409 WORKLOAD_SANDBOX_INVALID_STATE unless the target's workload has the status an action needs. */
function requireStatus(t: Target, action: string, status: "running" | "frozen"): void {
  if (t.w.status !== status)
    throw new ApiError(
      "WORKLOAD_SANDBOX_INVALID_STATE",
      `cannot ${action} sandbox ${t.w.uid}: its status is ${t.w.status}, not ${status}`,
    );
}

interface SandboxExt {
  sandbox_pool?: Pool;
}

function extOf(w: WorkloadRecord): SandboxExt {
  return (w.ext ?? {}) as SandboxExt;
}

export class SandboxService {
  private readonly ctx: ServerContext;
  private readonly pools: SandboxPools;
  private readonly snapshots: Snapshots;
  private readonly tickets: AccessTickets;
  private readonly timers: SandboxTimers;
  private readonly targets: SandboxTargets;
  /** X-Deployment-Type of the pending deploy request of a workload. */
  private readonly deployPool = new Map<string, Pool | undefined>();
  /** Child workload UID -> parent workload UID, for a deploy that is a fork. */
  private readonly forkOf = new Map<string, string>();
  private closed = false;

  constructor(ctx: ServerContext) {
    this.ctx = ctx;
    this.pools = new SandboxPools({
      sandboxRoot: ctx.options.sandboxRoot,
      store: ctx.store,
      busyWaitMs: ctx.options.timeouts.sandboxWaitMs,
    });
    this.snapshots = new Snapshots(this.pools.rootDir, () => this.pools.ensureRoot());
    this.tickets = new AccessTickets(ctx.clock);
    this.targets = new SandboxTargets({ workloads: ctx.store.workloads, pools: this.pools });
    this.timers = new SandboxTimers({
      pools: this.pools,
      store: ctx.store,
      lc: ctx.lifecycle,
      tickets: this.tickets,
      snapshots: this.snapshots,
      clock: ctx.clock,
      log: ctx.log,
      freeze: (t, reason, message) => this.freeze(t, reason, message),
    });
  }

  private get lc() {
    return this.ctx.lifecycle;
  }

  private get store() {
    return this.ctx.store;
  }

  private get templates(): SandboxTemplateService {
    return this.ctx.services.sandboxTemplates;
  }

  private readonly deployHook = (w: WorkloadRecord): Promise<void> => this.onDeploy(w);

  /**
   * Whether this module runs SANDBOX workloads: true unless a module registered later replaced
   * lifecycle.hooks.onDeploy, in which case the sandbox routes and WebSockets step aside for it.
   */
  active(): boolean {
    return this.lc.hooks.onDeploy === this.deployHook;
  }

  /** Sets the lifecycle hooks, marks sandboxes lost by a restart, starts the timers. */
  install(): void {
    const hooks = this.lc.hooks;
    hooks.admitDeploy = (w) => this.admitDeploy(w);
    hooks.onDeploy = this.deployHook;
    hooks.onDelete = (w) => this.onDelete(w);
    hooks.onUpdate = (_before, after) => this.onUpdate(after);
    hooks.onReset = () => this.reset();
    hooks.onRestore = () => this.destroyAll();
    hooks.afterRestore = () =>
      this.reconcile(
        "SandboxNotRestored",
        "a snapshot holds the sandbox's record, not its environment (files, processes); deploy it again",
      );
    this.reconcile(
      "SandboxLost",
      "the sandbox's environment was lost when the server restarted; deploy it again",
    );
    this.timers.start();
  }

  /**
   * Running or frozen sandboxes with no runtime (of a previous server process, or of a restored
   * snapshot) go to `error` with the reason and message given.
   */
  private reconcile(reason: string, message: string): void {
    for (const w of this.store.workloads.all()) {
      if (w.type !== "SANDBOX" || (w.status !== "running" && w.status !== "frozen")) continue;
      this.lc.transition(w, "error", { reason, message });
    }
  }

  poolOf(deploymentType: string | undefined): Pool {
    return this.pools.poolOf(deploymentType);
  }

  /** Called by the deploy route before the lifecycle runs: the pool the request asked for. */
  noteDeployPool(uid: string, deploymentType: Pool | undefined): void {
    if (deploymentType) this.deployPool.set(uid, deploymentType);
    else this.deployPool.delete(uid);
  }

  private forgetFork(childUid: string): void {
    this.forkOf.delete(childUid);
    this.deployPool.delete(childUid);
  }

  // ---- targets ----------------------------------------------------------------------------

  /** The sandbox an operation acts on, or the API error saying why not (see SandboxTargets.target). */
  target(org: string, uid: string, pool: Pool, action: string, need: Need): Target {
    return this.targets.target(org, uid, pool, action, need);
  }

  /** Whether uid is a SANDBOX workload of the org (other workloads' requests go to other routes). */
  isSandbox(org: string, uid: string): boolean {
    return this.targets.isSandbox(org, uid);
  }

  /** Runs an operation on the sandbox; it counts as activity for the idle timeout while it runs. */
  busy<T>(t: Target, fn: () => Promise<T>): Promise<T> {
    return this.pools.busy(t, fn);
  }

  runtimeState(live: LiveSandbox): string | undefined {
    return this.pools.runtimeState(live);
  }

  /** Marks activity the runtime does not see (desktop traffic), for the idle timeout. */
  touch(live: LiveSandbox): void {
    live.activity = Date.now();
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
      const t = this.templates.sourceOf(w);
      if (!t)
        throw new ApiError(
          "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND",
          `sandbox template ${w.sandbox_config?.template_uid} of sandbox ${w.uid} no longer exists`,
        );
      if (t.status !== "READY" || (t.kind === "USER" && !this.snapshots.has(t.uid)))
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
    const t = this.templates.sourceOf(w);
    await this.pools.start(w, pool, {
      desktop: Boolean(t?.desktop),
      parentUid,
      snapshotDir: t?.kind === "USER" ? this.snapshots.dir(t.uid) : undefined,
    });
  }

  private async onDelete(w: WorkloadRecord): Promise<void> {
    this.forgetFork(w.uid);
    this.tickets.forgetWorkload(w.uid);
    const live = this.pools.live.get(w.uid);
    if (live) await this.pools.teardown(live);
  }

  private async onUpdate(w: WorkloadRecord): Promise<void> {
    const live = this.pools.live.get(w.uid);
    if (!live || w.status !== "running") return; // frozen: keys are synced at thaw
    try {
      await this.pools.syncKeys(w, live);
    } catch (e) {
      this.ctx.log(`sandbox ${w.uid}: SSH keys not synced: ${(e as Error).message}`);
    }
  }

  // ---- freeze / thaw ----------------------------------------------------------------------

  async freeze(
    t: Target,
    reason = "Freeze",
    message = "sandbox frozen: processes stopped, files kept",
  ): Promise<void> {
    requireStatus(t, "freeze", "running");
    await t.rt.freeze(t.live.id);
    const cur = this.store.workloads.get(t.w.uid);
    if (cur && cur.status === "running") this.lc.transition(cur, "frozen", { reason, message });
  }

  async thaw(t: Target): Promise<void> {
    requireStatus(t, "thaw", "frozen");
    await t.rt.thaw(t.live.id);
    t.live.activity = Date.now();
    const cur = this.store.workloads.get(t.w.uid);
    if (cur && cur.status === "frozen")
      this.lc.transition(cur, "running", { reason: "Thaw", message: "sandbox thawed: processes resumed" });
    if (cur) await this.onUpdate(cur);
  }

  // ---- fork / publish ---------------------------------------------------------------------

  /**
   * Forks a running sandbox: a new SANDBOX workload (the parent's template, resources, ports,
   * SSH keys, project and timeouts unless the body says otherwise) with a copy of the parent's
   * files, created and deployed in `pool` in one operation. A child that cannot be deployed is
   * not kept.
   */
  async fork(parent: Target, pool: Pool, body: ForkBody): Promise<WorkloadRecord> {
    const p = parent.w;
    const name = body.name ?? forkName(p.name);
    const nv = nameViolation("SANDBOX", name);
    if (nv) throw violationError([nv]);
    const cfg = p.sandbox_config!;
    const projectId = body.project_id ?? p.project_id;
    const createBody: Partial<WorkloadCreate> = {
      type: "SANDBOX",
      name,
      image: p.image,
      sandbox_config: {
        ttl_sec: body.sandbox_config?.ttl_sec ?? cfg.ttl_sec,
        idle_timeout_sec: body.sandbox_config?.idle_timeout_sec ?? cfg.idle_timeout_sec,
      },
    };
    if (p.resource_name) createBody.resource_name = p.resource_name;
    if (p.ports.length) createBody.ports = p.ports.map((x) => ({ ...x }));
    if (p.ssh_keys.length) createBody.ssh_keys = [...p.ssh_keys];
    if (projectId) createBody.project_id = projectId;
    const child = this.ctx.services.workloads.create(p.org, createBody, {
      deploymentType: pool,
      parentWorkloadUid: p.uid,
    });
    this.forkOf.set(child.uid, p.uid);
    this.deployPool.set(child.uid, pool);
    try {
      await this.lc.deploy(child);
    } catch (e) {
      this.forgetFork(child.uid);
      await this.lc.delete(child);
      throw e;
    }
    return child;
  }

  /**
   * Publishes a running sandbox as a USER template: answers with the PENDING template at once,
   * then copies the sandbox's files; the template becomes READY, or FAILED if the copy fails.
   */
  publish(t: Target, body: PublishBody): SandboxTemplateRecord {
    const tpl = this.templates.createPending(t.w, body);
    void (async () => {
      let status: "READY" | "FAILED" = "READY";
      try {
        await this.snapshots.take(t.rt, t.live.id, tpl.uid);
      } catch (e) {
        status = "FAILED";
        this.ctx.log(`publish of ${t.w.uid} as ${tpl.uid} failed: ${(e as Error).message}`);
      }
      this.templates.settle(tpl.uid, status);
    })();
    return tpl;
  }

  // ---- tickets ----------------------------------------------------------------------------

  mintTicket(org: string, uid: string, pool: Pool, ttlSec: number): { ticket: string; expires_at: string } {
    return this.tickets.mint(org, uid, pool, ttlSec);
  }

  /** Consumes a ticket (whatever the outcome) and returns its pool; 401 when it does not admit org/uid now. */
  consumeTicket(ticket: string, org: string, uid: string): Pool {
    return this.tickets.consume(ticket, org, uid);
  }

  // ---- reset / close ----------------------------------------------------------------------

  private async destroyAll(): Promise<void> {
    await this.pools.destroyAll();
    this.tickets.clear();
    this.forkOf.clear();
    this.deployPool.clear();
  }

  private async reset(): Promise<void> {
    await this.destroyAll();
    await this.snapshots.clear();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timers.stop();
    await this.destroyAll();
    await this.pools.shutdown();
  }
}
