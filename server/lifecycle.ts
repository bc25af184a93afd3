import { EventEmitter } from "node:events";
import type { ProvisioningRuleCreate, VolumeEvent, WorkloadEvent, WorkloadStatus } from "../api/index.ts";
import { ApiError } from "./http/errors.ts";
import type { VolumeRecord, WorkloadRecord } from "./records.ts";
import type { InventoryItem } from "./seed.ts";
import type { Store } from "./store.ts";
import { hash32, iso, newRevision, newUid, type Clock } from "./util.ts";

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
  /** When the server closes. */
  onClose?(): void | Promise<void>;
}

export interface ProvisioningRule extends ProvisioningRuleCreate {
  id: string;
}

export interface TransitionOpts {
  reason: string;
  message: string;
  eventType?: string;
}

/** Statuses in which a workload holds an inventory unit. */
const HOLDING: readonly WorkloadStatus[] = ["provisioning", "running", "frozen"];
/** Statuses deploy starts from. */
export const DEPLOYABLE: readonly WorkloadStatus[] = ["registered", "suspended", "error"];

export interface LifecycleOptions {
  provisionDelayMs: number;
  log: (line: string) => void;
}

/**
 * The workload state machine: deploy, redeploy, suspend, reboot, delete, provisioning timers
 * (which resume after a restart), capacity and credits, events, and volume state that follows
 * the workload a volume is mounted on. Emits "workload-event" (workload, stored event) and
 * "volume-event" for every record written.
 */
export class Lifecycle extends EventEmitter {
  readonly store: Store;
  readonly clock: Clock;
  readonly hooks: WorkloadHooks = {};
  provisionDelayMs: number;
  private readonly log: (line: string) => void;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly holders = new Map<string, Set<string>>();
  private rules = new Map<string, ProvisioningRule[]>();
  private closed = false;

  constructor(store: Store, clock: Clock, opts: LifecycleOptions) {
    super();
    this.setMaxListeners(0);
    this.store = store;
    this.clock = clock;
    this.provisionDelayMs = opts.provisionDelayMs;
    this.log = opts.log;
  }

  now(): string {
    return iso(this.clock);
  }

  /** Rebuilds capacity accounting and resumes provisioning left in progress (after a restart). */
  start(): void {
    this.holders.clear();
    for (const w of this.store.workloads.all()) {
      this.updateHolding(w);
      if (w.status !== "provisioning") continue;
      if (w.provision_due_at !== undefined) this.schedule(w);
      else if (w.type === "SANDBOX" && this.hooks.onDeploy) this.runSandboxDeploy(w);
    }
  }

  // ---- reference data -------------------------------------------------------------------

  inventory(name: string): InventoryItem | undefined {
    return this.store.seed.inventory.find((i) => i.name === name);
  }

  orgOfToken(token: string): string | undefined {
    return this.store.seed.orgs.find((o) => o.tokens.includes(token))?.slug;
  }

  orgExists(org: string): boolean {
    return this.store.seed.orgs.some((o) => o.slug === org);
  }

  credits(org: string): number {
    return (
      this.store.kvGet<number>(`credits:${org}`) ??
      this.store.seed.orgs.find((o) => o.slug === org)?.credits ??
      0
    );
  }

  setCredits(org: string, balance: number): void {
    this.store.kvSet(`credits:${org}`, balance);
  }

  costPerHour(w: WorkloadRecord): number {
    if (w.type === "SANDBOX") {
      const t = w.sandbox_config ? this.store.sandboxTemplates.get(w.sandbox_config.template_uid) : undefined;
      if (t) return t.cost_per_hour;
    }
    return this.inventory(w.resource_name)?.cost_per_hour ?? 0;
  }

  /** Units of a resource held now (reservation-bound workloads use their reservation instead). */
  used(resourceName: string): number {
    return this.holders.get(resourceName)?.size ?? 0;
  }

  // ---- provisioning rules (admin) -------------------------------------------------------

  addRule(org: string, rule: ProvisioningRuleCreate): ProvisioningRule {
    const r = { ...rule, id: newUid("prov") };
    this.rules.set(org, [...(this.rules.get(org) ?? []), r]);
    return r;
  }

  clearRules(org: string): void {
    this.rules.delete(org);
  }

  listRules(org: string): ProvisioningRule[] {
    return this.rules.get(org) ?? [];
  }

  private matchRule(w: WorkloadRecord): ProvisioningRule | undefined {
    const rules = this.rules.get(w.org) ?? [];
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i]!;
      if (r.workload_uid !== undefined && r.workload_uid !== w.uid) continue;
      if (r.name !== undefined && r.name !== w.name) continue;
      return r;
    }
    return undefined;
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

  recordVolumeEvent(
    v: VolumeRecord,
    e: { event_type: string; old_status: string | null; new_status: string | null; reason: string },
  ): void {
    v.resource_version++;
    const record: VolumeEvent = {
      volume_uid: v.uid,
      cost_per_second: Math.round((volumeCostPerHour(this.store, v) / 3600) * 1e9),
      resource_name: v.resource_name,
      event_type: e.event_type,
      namespace: `org-${v.org}`,
      pvc_name: v.pvc_name,
      storage_class: "standard-rwo",
      requested_size: `${v.size}Mi`,
      old_status: e.old_status,
      new_status: e.new_status,
      reason: e.reason,
      k8s_resource_version: String(v.resource_version),
      billing_status: e.new_status === "running" ? "BILLING" : "NOT_BILLED",
      billing_processed_at: null,
      created_at: this.now(),
    };
    const stored = this.store.addEvent("volume", v.uid, record);
    this.emit("volume-event", v, stored);
  }

  setVolumeStatus(v: VolumeRecord, status: string, reason: string, message = ""): void {
    if (v.status === status) return;
    const old = v.status;
    v.status = status;
    v.message = message;
    v.state_updated_at = v.updated_at = this.now();
    this.recordVolumeEvent(v, { event_type: "STATUS_CHANGE", old_status: old, new_status: status, reason });
    this.store.volumes.put(v);
  }

  /** Volumes mounted on w follow its status: provisioning, running, else registered. */
  syncVolumes(w: WorkloadRecord): void {
    const desired =
      w.status === "provisioning" ? "provisioning" : w.status === "running" ? "running" : "registered";
    for (const m of w.volumes) {
      const v = this.store.volumes.get(m.uid);
      if (!v || v.workload_uid !== w.uid) continue;
      this.setVolumeStatus(v, desired, `workload ${w.status}`);
    }
  }

  /** Mounts volume v on w (record only; w's volumes list is the caller's). */
  attachVolume(w: WorkloadRecord, v: VolumeRecord, mountPath: string, readOnly: boolean): void {
    const changed = v.workload_uid !== w.uid;
    v.workload_uid = w.uid;
    v.mount_path = mountPath;
    v.read_only = readOnly;
    v.updated_at = this.now();
    if (changed)
      this.recordVolumeEvent(v, {
        event_type: "ATTACHED",
        old_status: v.status,
        new_status: v.status,
        reason: `attached to workload ${w.uid}`,
      });
    this.store.volumes.put(v);
  }

  detachVolume(v: VolumeRecord, reason: string): void {
    if (v.workload_uid === undefined) return;
    const from = v.workload_uid;
    v.workload_uid = undefined;
    v.mount_path = undefined;
    v.read_only = undefined;
    v.updated_at = this.now();
    this.recordVolumeEvent(v, {
      event_type: "DETACHED",
      old_status: v.status,
      new_status: v.status,
      reason: `${reason} (workload ${from})`,
    });
    this.setVolumeStatus(v, "registered", reason);
    this.store.volumes.put(v);
  }

  // ---- transitions ----------------------------------------------------------------------

  private updateHolding(w: WorkloadRecord): void {
    const key = w.resource_name;
    const holds = HOLDING.includes(w.status) && !w.reservation_uid;
    let set = this.holders.get(key);
    if (holds) {
      if (!set) this.holders.set(key, (set = new Set()));
      set.add(w.uid);
    } else set?.delete(w.uid);
  }

  /** Moves w to `to`, writes it and an event, and lets its volumes follow. */
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
      this.updateHolding(w);
      this.store.workloads.put(w);
      this.recordEvent(w, {
        event_type: opts.eventType ?? "STATUS_CHANGE",
        reason: opts.reason,
        message: opts.message,
        old_replica_count: oldReady,
      });
      this.syncVolumes(w);
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
    const cost = this.costPerHour(w);
    const balance = this.credits(w.org);
    if (balance < cost) {
      throw new ApiError(
        "WORKLOAD_INSUFFICIENT_CREDITS",
        `insufficient credits: deploying ${w.uid} needs ${cost} USD (one hour at cost_per_hour), org ${w.org} has ${balance}`,
      );
    }
    this.checkCapacity(w);
    if (w.type === "SANDBOX") {
      const rule = this.matchRule(w);
      if (!(rule && rule.outcome === "error")) {
        if (!this.hooks.onDeploy) {
          throw new ApiError(
            "WORKLOAD_SANDBOX_NO_CAPACITY",
            "sandbox runtime not enabled: this server cannot deploy SANDBOX workloads",
          );
        }
        await this.hooks.admitDeploy?.(w);
        this.assertState(w, DEPLOYABLE, "deploy");
        this.checkCapacity(w);
        w.deploy_id++;
        w.revision = newRevision();
        this.transition(w, "provisioning", { reason: "Deploy", message: `deploying revision ${w.revision}` });
        this.runSandboxDeploy(w);
        return;
      }
    }
    this.startProvisioning(w, { reason: "Deploy", message: "", newRevision: true });
  }

  private checkCapacity(w: WorkloadRecord): void {
    if (w.reservation_uid) return;
    const item = this.inventory(w.resource_name);
    if (!item)
      throw new ApiError(
        "WORKLOAD_RESOURCE_NOT_FOUND",
        `resource_name ${w.resource_name} is not in the inventory`,
      );
    if (w.type === "BM") {
      const inRegion = item.region === undefined || item.region === w.region;
      const free = inRegion ? (item.capacity ?? Infinity) - this.used(item.name) : 0;
      if (free <= 0) {
        throw new ApiError(
          "WORKLOAD_BM_CLAIM_CONFLICT",
          `no bare-metal capacity for ${item.name} in region ${w.region}: nothing was claimed, deploy again later or pick another region`,
        );
      }
      return;
    }
    if (item.capacity !== undefined && this.used(item.name) >= item.capacity) {
      if (w.type === "SANDBOX")
        throw new ApiError("WORKLOAD_SANDBOX_NO_CAPACITY", `no sandbox capacity left for ${item.name}`);
      throw new ApiError(
        "WORKLOAD_NO_CAPACITY",
        `no capacity left for resource ${item.name} (${item.capacity} in use)`,
      );
    }
  }

  private startProvisioning(
    w: WorkloadRecord,
    opts: { reason: string; message: string; newRevision: boolean },
  ): void {
    this.clearTimer(w.uid);
    w.deploy_id++;
    if (opts.newRevision) w.revision = newRevision();
    const rule = this.matchRule(w);
    const delay = rule?.delay_ms ?? this.provisionDelayMs;
    const message = opts.message || `deploying revision ${w.revision}`;
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
    if (!HOLDING.includes(w.status)) this.checkCapacity(w);
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
        if (v && v.workload_uid === w.uid) this.detachVolume(v, "workload deleted");
      }
      w.volumes = [];
      this.store.workloads.put(w);
    });
    this.emit("workload-deleted", w);
  }

  /** Drops all timers and rules (admin reset). */
  resetRuntime(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.holders.clear();
    this.rules = new Map();
  }

  close(): void {
    this.closed = true;
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

export function volumeCostPerHour(store: Store, v: VolumeRecord): number {
  const rate = store.seed.volume_cost_per_gib_hour ?? 0.00014;
  return Math.round((v.size / 1024) * rate * 1e6) / 1e6;
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
