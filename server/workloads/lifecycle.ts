import { EventEmitter } from "node:events";
import type { WorkloadEvent, WorkloadStatus } from "../../api/index.ts";
import { costPerHour, credits } from "../common/billing.ts";
import { Capacity, HOLDING } from "./capacity.ts";
import { ApiError } from "../http/errors.ts";
import { ProvisioningRules } from "./provisioning-rules.ts";
import { StagedFailures } from "./staged-failures.ts";
import type { WorkloadRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { hash32, iso, newRevision, type Clock } from "../common/util.ts";
import { VolumeStates } from "./volume-states.ts";

/**
 * Hooks an extension module (the sandbox runtime) sets to take over SANDBOX workloads.
 * Until onDeploy is set, deploying a SANDBOX answers 503 WORKLOAD_SANDBOX_NO_CAPACITY.
 */
export interface WorkloadHooks {
  /** Before a SANDBOX deploy changes anything: throw an ApiError to refuse it. */
  admitDeploy?(w: WorkloadRecord): void | Promise<void>;
  /**
   * Called once a SANDBOX workload is `provisioning` (its deploy was accepted). Resolve when the
   * sandbox runs (the workload becomes `running`), reject to put it in `error` with the
   * rejection's message. Ignored if the workload moved on meanwhile (deleted, redeployed).
   */
  onDeploy?(w: WorkloadRecord): Promise<void>;
  /** Before a SANDBOX workload is marked deleted (errors are logged, the delete goes on). */
  onDelete?(w: WorkloadRecord): void | Promise<void>;
  /** After a SANDBOX workload's fields changed without redeploy (PATCH, SSH key attach/detach). */
  onUpdate?(before: WorkloadRecord, after: WorkloadRecord): void | Promise<void>;
  /** Before the admin reset wipes the state. */
  onReset?(): void | Promise<void>;
  /** Before a snapshot's state replaces the state (server/admin/service.ts). */
  onRestore?(): void | Promise<void>;
  /** Right after a snapshot's state replaced the state, in the same synchronous step. */
  afterRestore?(): void;
  /** When the server closes. */
  onClose?(): void | Promise<void>;
}

export interface TransitionOpts {
  reason: string;
  message: string;
  eventType?: string;
  exitCode?: number;
}

/** Statuses deploy starts from. */
export const DEPLOYABLE: readonly WorkloadStatus[] = ["registered", "suspended", "error"];

export interface LifecycleOptions {
  provisionDelayMs: number;
  log: (line: string) => void;
}

/**
 * The workload state machine: deploy, redeploy, suspend, reboot, delete, provisioning timers
 * (which resume after a restart) and events. Deploy checks credits (billing.ts) and capacity
 * (capacity.ts) and follows the admin's provisioning rules (provisioning-rules.ts); volumes
 * mounted on a workload follow its status (volume-states.ts). Emits "workload-event" (workload,
 * stored event) and "volume-event" for every record written.
 */
export class Lifecycle extends EventEmitter {
  private readonly store: Store;
  readonly clock: Clock;
  readonly hooks: WorkloadHooks = {};
  provisionDelayMs: number;
  private readonly log: (line: string) => void;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  readonly capacity: Capacity;
  readonly rules = new ProvisioningRules();
  /** Failures staged by provisioning rules (staged-failures.ts): their events, lines and end. */
  readonly staging: StagedFailures;
  readonly volumes: VolumeStates;
  private closed = false;

  constructor(store: Store, clock: Clock, opts: LifecycleOptions) {
    super();
    this.setMaxListeners(0);
    this.store = store;
    this.clock = clock;
    this.provisionDelayMs = opts.provisionDelayMs;
    this.log = opts.log;
    this.capacity = new Capacity(store);
    this.staging = new StagedFailures({
      now: () => this.now(),
      current: (uid, deployId) => {
        const w = this.store.workloads.get(uid);
        return w && w.status === "provisioning" && w.deploy_id === deployId && !this.closed ? w : undefined;
      },
      event: (w, e) => this.recordEvent(w, e),
      fail: (w, f) =>
        this.transition(w, "error", { ...f, exitCode: f.exit_code, eventType: "STATUS_CHANGE" }),
      printed: (w, line) => this.emit("workload-log", w, line),
    });
    this.volumes = new VolumeStates(
      store,
      () => this.now(),
      (v, stored) => this.emit("volume-event", v, stored),
    );
  }

  now(): string {
    return iso(this.clock);
  }

  /** Rebuilds capacity accounting and resumes provisioning left in progress (after a restart). */
  start(): void {
    this.capacity.clear();
    for (const w of this.store.workloads.all()) {
      this.capacity.update(w);
      if (w.status !== "provisioning") continue;
      if (w.provision_due_at !== undefined) this.schedule(w);
      else if (w.type === "SANDBOX" && this.hooks.onDeploy) this.runSandboxDeploy(w);
    }
  }

  // ---- events ---------------------------------------------------------------------------

  recordEvent(
    w: WorkloadRecord,
    e: {
      event_type: string;
      reason: string;
      message: string;
      new_status?: string | null;
      old_replica_count?: number | null;
      exit_code?: number | null;
    },
  ): void {
    const deployed = w.deploy_id > 0;
    const record: WorkloadEvent = {
      workload_uid: w.uid,
      workload_type: w.type,
      resource_name: w.resource_name,
      event_type: e.event_type,
      pod_name: deployed ? `${w.name}-${w.revision}` : null,
      container_name: w.type === "RENTAL" || w.type === "SANDBOX" ? w.name : null,
      container_image: w.image,
      new_status: e.new_status ?? w.status,
      replica_count: readyReplicas(w),
      old_replica_count: e.old_replica_count ?? null,
      reason: e.reason,
      message: e.message,
      display_message: e.message,
      exit_code: e.exit_code ?? null,
      created_at: this.now(),
    };
    const stored = this.store.addEvent("workload", w.uid, record, {
      revision: w.revision,
      deploy_id: w.deploy_id,
    });
    this.emit("workload-event", w, stored);
  }

  /** Writes the changed workload and its event (event_type, reason, message) in one transaction. */
  saveWithEvent(w: WorkloadRecord, e: { event_type: string; reason: string; message: string }): void {
    this.store.transaction(() => {
      this.store.workloads.put(w);
      this.recordEvent(w, e);
    });
  }

  // ---- transitions ----------------------------------------------------------------------

  transition(w: WorkloadRecord, to: WorkloadStatus, opts: TransitionOpts): void {
    this.store.transaction(() => {
      const from = w.status;
      const oldReady = readyReplicas(w);
      w.status = to;
      w.message = opts.message;
      w.state_updated_at = w.updated_at = this.now();
      if (to === "running" && (w.type === "VM" || w.type === "BM") && !w.public_ip) {
        const h = hash32(w.uid);
        w.public_ip = `100.${64 + (h & 63)}.${(h >>> 6) & 255}.${1 + ((h >>> 14) % 254)}`;
        w.ssh_port = w.type === "VM" ? 30000 + ((h >>> 3) % 2768) : 22;
      }
      if (to !== "provisioning") {
        w.provision_due_at = undefined;
        w.provision_outcome = undefined;
        w.provision_message = undefined;
      }
      this.capacity.update(w);
      this.store.workloads.put(w);
      this.recordEvent(w, {
        event_type: opts.eventType ?? "STATUS_CHANGE",
        reason: opts.reason,
        message: opts.message,
        old_replica_count: oldReady,
        exit_code: opts.exitCode,
      });
      this.volumes.syncVolumes(w);
      this.emit("transition", w, from);
    });
  }

  private assertState(w: WorkloadRecord, allowed: readonly WorkloadStatus[], action: string): void {
    if (!allowed.includes(w.status)) {
      throw new ApiError(
        "WORKLOAD_INVALID_STATE",
        `cannot ${action} workload ${w.uid}: its status is ${w.status} (allowed from: ${allowed.join(", ")})`,
      );
    }
  }

  /** Deploy: registered, suspended or error → provisioning (later running or error). */
  async deploy(w: WorkloadRecord): Promise<void> {
    this.assertState(w, DEPLOYABLE, "deploy");
    const cost = costPerHour(this.store, w);
    const balance = credits(this.store, w.org);
    if (balance < cost) {
      throw new ApiError(
        "WORKLOAD_INSUFFICIENT_CREDITS",
        `insufficient credits: deploying ${w.uid} needs ${cost} USD (one hour at cost_per_hour), org ${w.org} has ${balance}`,
      );
    }
    this.capacity.check(w);
    if (w.type === "SANDBOX") {
      const rule = this.rules.match(w);
      if (!(rule && (rule.outcome === "error" || rule.failure))) {
        if (!this.hooks.onDeploy) {
          throw new ApiError(
            "WORKLOAD_SANDBOX_NO_CAPACITY",
            "sandbox runtime not enabled: this server cannot deploy SANDBOX workloads",
          );
        }
        await this.hooks.admitDeploy?.(w);
        this.assertState(w, DEPLOYABLE, "deploy");
        this.capacity.check(w);
        w.deploy_id++;
        w.revision = newRevision();
        this.transition(w, "provisioning", { reason: "Deploy", message: `deploying revision ${w.revision}` });
        this.runSandboxDeploy(w);
        return;
      }
    }
    this.startProvisioning(w, { reason: "Deploy", message: "", newRevision: true });
  }

  private startProvisioning(
    w: WorkloadRecord,
    opts: { reason: string; message: string; newRevision: boolean },
  ): void {
    this.clearTimer(w.uid);
    w.deploy_id++;
    if (opts.newRevision) w.revision = newRevision();
    const rule = this.rules.match(w);
    const delay = rule?.delay_ms ?? this.provisionDelayMs;
    const message = opts.message || `deploying revision ${w.revision}`;
    if (rule?.failure) {
      // A staged failure runs its own steps (and never completes after a restart of the server).
      this.transition(w, "provisioning", { reason: opts.reason, message });
      this.staging.start(w, rule, delay);
      return;
    }
    this.store.transaction(() => {
      this.transition(w, "provisioning", { reason: opts.reason, message });
      w.provision_due_at = this.clock.now() + delay;
      w.provision_outcome = rule?.outcome ?? "running";
      w.provision_message = rule?.message;
      this.store.workloads.put(w);
    });
    this.schedule(w);
  }

  private schedule(w: WorkloadRecord): void {
    if (this.closed) return;
    this.clearTimer(w.uid);
    const deployId = w.deploy_id;
    const wait = Math.max(0, (w.provision_due_at ?? 0) - this.clock.now());
    const t = setTimeout(() => {
      this.timers.delete(w.uid);
      try {
        this.complete(w.uid, deployId);
      } catch (e) {
        this.log(`provisioning of ${w.uid} failed: ${(e as Error).message}`);
      }
    }, wait);
    t.unref();
    this.timers.set(w.uid, t);
  }

  private clearTimer(uid: string): void {
    this.staging.stop(uid);
    const t = this.timers.get(uid);
    if (t) clearTimeout(t);
    this.timers.delete(uid);
  }

  private complete(uid: string, deployId: number): void {
    const w = this.store.workloads.get(uid);
    if (!w || w.status !== "provisioning" || w.deploy_id !== deployId) return;
    if (w.provision_outcome === "error") {
      this.transition(w, "error", {
        reason: "ProvisioningFailed",
        message: w.provision_message || "provisioning failed",
      });
    } else {
      this.transition(w, "running", { reason: "Running", message: runningMessage(w) });
    }
  }

  private runSandboxDeploy(w: WorkloadRecord): void {
    const deployId = w.deploy_id;
    const still = () => {
      const cur = this.store.workloads.get(w.uid);
      return cur && cur.status === "provisioning" && cur.deploy_id === deployId && !this.closed
        ? cur
        : undefined;
    };
    Promise.resolve()
      .then(() => this.hooks.onDeploy!(w))
      .then(
        () => {
          const cur = still();
          if (cur) this.transition(cur, "running", { reason: "Running", message: runningMessage(cur) });
        },
        (e: unknown) => {
          const cur = still();
          if (cur)
            this.transition(cur, "error", {
              reason: "ProvisioningFailed",
              message: e instanceof Error ? e.message : String(e),
            });
        },
      )
      .catch((e: unknown) => this.log(`sandbox deploy of ${w.uid}: ${(e as Error).message}`));
  }

  /** Throws what redeploy would (capacity), before the caller changes anything. */
  assertCanRedeploy(w: WorkloadRecord): void {
    if (!HOLDING.includes(w.status)) this.capacity.check(w);
  }

  /** A changed workload that is deployed gets a new revision and provisions again. */
  redeploy(w: WorkloadRecord, reason = "Redeploy"): void {
    this.startProvisioning(w, { reason, message: "", newRevision: true });
  }

  suspend(w: WorkloadRecord): void {
    if (w.type !== "RENTAL") {
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `suspend is only supported for RENTAL workloads (workload ${w.uid} is ${w.type})`,
      );
    }
    this.assertState(w, ["provisioning", "running", "error"], "suspend");
    this.clearTimer(w.uid);
    this.transition(w, "suspended", { reason: "Suspend", message: "runtime resources removed" });
  }

  reboot(w: WorkloadRecord): void {
    if (w.type !== "VM") {
      throw new ApiError(
        "WORKLOAD_OPERATION_UNSUPPORTED",
        `reboot is only supported for VM workloads (workload ${w.uid} is ${w.type})`,
      );
    }
    this.assertState(w, ["running"], "reboot");
    this.startProvisioning(w, { reason: "Reboot", message: "rebooting", newRevision: false });
  }

  /** Soft delete: status deleted, runtime torn down, capacity freed, volumes detached. Idempotent. */
  async delete(w: WorkloadRecord): Promise<void> {
    if (w.status === "deleted") return;
    if (w.type === "SANDBOX" && this.hooks.onDelete) {
      try {
        await this.hooks.onDelete(w);
      } catch (e) {
        this.log(`sandbox teardown of ${w.uid}: ${(e as Error).message}`);
      }
      if ((w.status as WorkloadStatus) === "deleted") return;
    }
    this.clearTimer(w.uid);
    this.store.transaction(() => {
      w.deleted_at = this.now();
      this.transition(w, "deleted", { reason: "Delete", message: "workload deleted" });
      for (const m of w.volumes) {
        const v = this.store.volumes.get(m.uid);
        if (v && v.workload_uid === w.uid) this.volumes.detachVolume(v, "workload deleted");
      }
      w.volumes = [];
      this.store.workloads.put(w);
    });
    this.emit("workload-deleted", w);
  }

  /** Drops all timers and the units counted as held (admin reset, snapshot restore; start() counts again). */
  resetRuntime(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.staging.reset();
    this.capacity.clear();
  }

  close(): void {
    this.closed = true;
    this.staging.reset();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

export function readyReplicas(w: WorkloadRecord): number {
  return w.status === "running" ? 1 : 0;
}

export function totalReplicas(w: WorkloadRecord): number {
  return w.status === "running" || w.status === "provisioning" || w.status === "frozen" ? 1 : 0;
}

function runningMessage(w: WorkloadRecord): string {
  switch (w.type) {
    case "RENTAL":
      return `container ${w.name} running (image ${w.image}, revision ${w.revision})`;
    case "VM":
      return `virtual machine ${w.name} running (image ${w.image})`;
    case "BM":
      return `bare-metal server ${w.bm_config?.hostname ?? w.name} running (image ${w.image}, region ${w.region})`;
    default:
      return `sandbox ${w.name} running`;
  }
}
