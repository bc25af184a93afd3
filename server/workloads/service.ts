import {
  SANDBOX_PATCH_FIELDS,
  WorkloadPatch,
  nameViolation,
  sshKeyViolations,
  portViolations,
  redeploys,
  sandboxTimeoutViolation,
  validateWorkloadCreate,
  workloadRuleViolations,
  type PageQuery,
  type WorkloadCreate,
  type WorkloadEvent,
  type WorkloadListQuery,
} from "../../api/index.ts";
import type { ServiceDeps } from "../common/service-deps.ts";
import type { Cursors } from "../common/cursors.ts";
import type { Store } from "../store/store.ts";
import { eventPageOf, pageOf, type PageResult } from "../common/pages.ts";
import { ApiError, violationError, zodError, notFound } from "../http/errors.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { WorkloadRecord } from "../store/records.ts";
import { newRevision, newUid, sha256Hex } from "../common/util.ts";
import type { WorkloadChecks } from "./checks.ts";

/**
 * Registering, reading and updating workloads: create and PATCH apply the contract's rules
 * (api/workload-rules.ts) and the checks that need server data (workload-checks.ts), then write
 * the record and its event in one transaction. The state machine (deploy, suspend, delete) is
 * lifecycle.ts; attach and detach are workload-attachments.ts.
 */
export class WorkloadService {
  private readonly store: Store;
  private readonly lc: Lifecycle;
  private readonly checks: WorkloadChecks;
  private readonly cursors: Cursors;

  constructor(deps: ServiceDeps, lc: Lifecycle, checks: WorkloadChecks) {
    this.store = deps.store;
    this.cursors = deps.cursors;
    this.lc = lc;
    this.checks = checks;
  }

  /** The org's workload or 404 WORKLOAD_NOT_FOUND (other orgs' workloads do not exist for it). */
  get(org: string, uid: string): WorkloadRecord {
    const w = this.store.workloads.getIn(org, uid);
    if (!w) throw notFound("WORKLOAD_NOT_FOUND", "workload", uid);
    return w;
  }

  /** The workload unless deleted (409 WORKLOAD_INVALID_STATE). */
  getLive(org: string, uid: string, action: string): WorkloadRecord {
    const w = this.get(org, uid);
    if (w.status === "deleted")
      throw new ApiError("WORKLOAD_INVALID_STATE", `cannot ${action} workload ${uid}: its status is deleted`);
    return w;
  }

  /** A page of the org's workloads; deleted ones only when the query asks for status deleted. */
  list(org: string, q: WorkloadListQuery): PageResult<WorkloadRecord> {
    const scope = { cursors: this.cursors, org, list: "workloads" };
    const docs = this.store.workloads;
    return pageOf(
      scope,
      docs.list(org),
      (w) => docs.seqOf(w.uid)!,
      q,
      (w) => {
        if (q.status ? w.status !== q.status : w.status === "deleted") return false;
        if (q.type && w.type !== q.type) return false;
        if (q.project_id !== undefined && (w.project_id ?? "") !== q.project_id) return false;
        if (q.name !== undefined && w.name !== q.name) return false;
        return true;
      },
    );
  }

  /** A page of a workload's events, oldest first. */
  events(w: WorkloadRecord, q: PageQuery): PageResult<WorkloadEvent> {
    const scope = { cursors: this.cursors, org: w.org, list: `workloads/${w.uid}/events` };
    return eventPageOf<WorkloadEvent>(scope, this.store, "workload", w.uid, q);
  }

  /** Whether `digest` (hex, optionally `sha256:`) is the SHA-256 of the workload's image. */
  verify(org: string, uid: string, digest: string): boolean {
    const w = this.get(org, uid);
    return digest.replace(/^sha256:/, "") === sha256Hex(w.image);
  }

  // ---- create ---------------------------------------------------------------------------

  /** Registers a workload (status registered; nothing is deployed). */
  create(
    org: string,
    input: unknown,
    opts: { deploymentType?: string; parentWorkloadUid?: string } = {},
  ): WorkloadRecord {
    const result = validateWorkloadCreate(input);
    if (!result.ok) throw violationError(result.violations);
    const body = result.value;
    let resourceName = body.resource_name;
    if (body.type === "SANDBOX") {
      // A SANDBOX names its sandbox template in `image` (spec 2.1: SANDBOX image = template
      // UID): the create body has one field for what a workload runs, whatever its type. The
      // provider's `template` input is sent there; the record keeps it as sandbox_config.template_uid.
      const t = this.checks.sandboxTemplate(org, body.image);
      this.checks.resource("SANDBOX", body.resource_name);
      resourceName ??= t.resource_name;
    } else {
      this.checks.resource(body.type, body.resource_name);
      this.checks.image(body.type, body.image);
      this.checks.regionAndReservation(org, body);
    }
    this.checks.sshKeys(org, body.ssh_keys);
    this.checks.volumes(org, body.volumes);

    const now = this.lc.now();
    const w: WorkloadRecord = {
      uid: newUid("wl"),
      org,
      type: body.type,
      name: body.name,
      image: body.image,
      resource_name: resourceName!,
      envs: body.envs ?? [],
      ports: body.ports ?? [],
      commands: body.commands ?? [],
      args: body.args ?? [],
      ssh_keys: body.ssh_keys ?? [],
      volumes: (body.volumes ?? []).map((v) => ({
        uid: v.uid,
        mount_path: v.mount_path,
        read_only: v.read_only ?? false,
      })),
      experiments: { ...(body.experiments ?? {}) } as Record<string, boolean>,
      status: "registered",
      message: "registered, awaiting deploy",
      revision: newRevision(),
      deploy_id: 0,
      state_updated_at: now,
      created_at: now,
      updated_at: now,
    };
    if (body.region !== undefined) w.region = body.region;
    if (body.reservation_uid !== undefined) w.reservation_uid = body.reservation_uid;
    if (body.registry_auth) w.registry_auth = { ...body.registry_auth };
    if (body.vm_config) w.vm_config = { password: body.vm_config.password };
    if (body.type === "BM") w.bm_config = { hostname: body.bm_config?.hostname };
    if (body.project_id) w.project_id = body.project_id;
    if (body.type === "SANDBOX") {
      w.sandbox_config = {
        template_uid: body.image,
        ttl_sec: body.sandbox_config?.ttl_sec ?? 0,
        idle_timeout_sec: body.sandbox_config?.idle_timeout_sec ?? 0,
      };
      if (opts.parentWorkloadUid) w.sandbox_config.parent_workload_uid = opts.parentWorkloadUid;
    }
    if (opts.deploymentType) w.deployment_type = opts.deploymentType;

    this.store.transaction(() => {
      this.store.workloads.put(w);
      for (const m of w.volumes)
        this.lc.volumes.attachVolume(w, this.store.volumes.get(m.uid)!, m.mount_path, m.read_only);
      this.lc.recordEvent(w, {
        event_type: "CREATED",
        reason: "Registered",
        message: `workload ${w.name} registered`,
      });
    });
    return w;
  }

  // ---- update ---------------------------------------------------------------------------

  /** The stored workload as a create body (empty lists left out), for re-validation. */
  private asCreateBody(w: WorkloadRecord): Record<string, unknown> {
    const b: Record<string, unknown> = { type: w.type, name: w.name, image: w.image };
    if (w.type !== "SANDBOX") b.resource_name = w.resource_name;
    const opt = (k: string, v: unknown) => {
      if (v === undefined) return;
      if (Array.isArray(v) && v.length === 0) return;
      if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) return;
      b[k] = v;
    };
    opt("region", w.region);
    opt("reservation_uid", w.reservation_uid);
    opt("envs", w.envs);
    opt("ports", w.ports);
    opt("commands", w.commands);
    opt("args", w.args);
    opt("registry_auth", w.registry_auth);
    opt("ssh_keys", w.ssh_keys);
    opt("volumes", w.volumes);
    opt("vm_config", w.vm_config);
    if (w.bm_config?.hostname !== undefined) b.bm_config = { hostname: w.bm_config.hostname };
    opt("project_id", w.project_id);
    opt("experiments", w.experiments);
    return b;
  }

  /** PATCH: sandboxes update in place; other types are re-validated and redeployed when deployed. */
  async update(org: string, uid: string, input: unknown): Promise<WorkloadRecord> {
    const w = this.get(org, uid);
    if (input === undefined || input === null || typeof input !== "object" || Array.isArray(input)) {
      throw new ApiError("INVALID_BODY", "request body must be a JSON object");
    }
    if (w.type === "SANDBOX") return this.updateSandbox(w, input as Record<string, unknown>);
    const parsed = WorkloadPatch.safeParse(input);
    if (!parsed.success) throw zodError(parsed.error, "INVALID_BODY");
    const patch = parsed.data;
    if (w.status === "deleted")
      throw new ApiError("WORKLOAD_INVALID_STATE", `cannot update workload ${uid}: its status is deleted`);

    const merged = { ...this.asCreateBody(w) } as Record<string, unknown>;
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      if ((k === "project_id" && v === "") || v === null) delete merged[k];
      else merged[k] = v;
    }
    const violations = workloadRuleViolations(merged as WorkloadCreate);
    if (violations.length) throw violationError(violations);
    if (patch.image !== undefined) this.checks.image(w.type, patch.image);
    if (patch.ssh_keys !== undefined) this.checks.sshKeys(org, patch.ssh_keys);
    if (patch.volumes !== undefined) this.checks.volumes(org, patch.volumes, w.uid);

    const updates: Partial<WorkloadRecord> = {};
    if (patch.name !== undefined) updates.name = patch.name;
    if (patch.image !== undefined) updates.image = patch.image;
    if (patch.envs !== undefined) updates.envs = patch.envs;
    if (patch.ports !== undefined) updates.ports = patch.ports;
    if (patch.commands !== undefined) updates.commands = patch.commands;
    if (patch.args !== undefined) updates.args = patch.args;
    if (patch.registry_auth !== undefined)
      updates.registry_auth = patch.registry_auth === null ? undefined : { ...patch.registry_auth };
    if (patch.ssh_keys !== undefined) updates.ssh_keys = patch.ssh_keys;
    if (patch.experiments !== undefined)
      updates.experiments = { ...patch.experiments } as Record<string, boolean>;
    if (patch.project_id !== undefined)
      updates.project_id = patch.project_id === "" ? undefined : patch.project_id;
    if (patch.volumes !== undefined) {
      updates.volumes = patch.volumes.map((v) => ({
        uid: v.uid,
        mount_path: v.mount_path,
        read_only: v.read_only ?? false,
      }));
    }
    const changed = Object.keys(updates).filter(
      (k) =>
        JSON.stringify(w[k as keyof WorkloadRecord]) !== JSON.stringify(updates[k as keyof WorkloadRecord]),
    );
    if (changed.length === 0) return w;
    const redeploy = redeploys(w.type, w.status, changed);
    if (redeploy) this.lc.assertCanRedeploy(w);

    const oldVolumes = w.volumes;
    Object.assign(w, updates);
    this.store.transaction(() => {
      w.updated_at = this.lc.now();
      if (updates.volumes) this.lc.volumes.remount(w, oldVolumes, updates.volumes);
      this.lc.saveWithEvent(w, {
        event_type: "UPDATED",
        reason: "Updated",
        message: `updated: ${changed.sort().join(", ")}`,
      });
      if (redeploy) this.lc.redeploy(w);
    });
    return w;
  }

  private async updateSandbox(w: WorkloadRecord, input: Record<string, unknown>): Promise<WorkloadRecord> {
    const allowed = new Set<string>(SANDBOX_PATCH_FIELDS);
    const updatable =
      "updatable: name, project_id, ssh_keys, ports, sandbox_config.ttl_sec, sandbox_config.idle_timeout_sec";
    for (const k of Object.keys(input)) {
      if (!allowed.has(k))
        throw new ApiError(
          "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD",
          `${k} cannot be updated on a sandbox (${updatable})`,
        );
    }
    const sc = input.sandbox_config;
    if (sc && typeof sc === "object" && !Array.isArray(sc)) {
      for (const k of Object.keys(sc)) {
        if (k !== "ttl_sec" && k !== "idle_timeout_sec") {
          throw new ApiError(
            "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD",
            `sandbox_config.${k} cannot be updated on a sandbox (${updatable})`,
          );
        }
      }
    }
    const parsed = WorkloadPatch.safeParse(input);
    if (!parsed.success) throw zodError(parsed.error, "INVALID_BODY");
    const patch = parsed.data;
    if (w.status === "deleted")
      throw new ApiError("WORKLOAD_INVALID_STATE", `cannot update workload ${w.uid}: its status is deleted`);
    if (patch.name !== undefined) {
      const v = nameViolation("SANDBOX", patch.name);
      if (v) throw violationError([v]);
    }
    if (patch.ports !== undefined) {
      const v = portViolations("SANDBOX", patch.ports);
      if (v.length) throw violationError(v);
    }
    const cfg = { ...w.sandbox_config! };
    if (patch.sandbox_config?.ttl_sec !== undefined) cfg.ttl_sec = patch.sandbox_config.ttl_sec;
    if (patch.sandbox_config?.idle_timeout_sec !== undefined)
      cfg.idle_timeout_sec = patch.sandbox_config.idle_timeout_sec;
    const tv = sandboxTimeoutViolation(cfg.ttl_sec, cfg.idle_timeout_sec);
    if (tv) throw violationError([tv]);
    if (patch.ssh_keys !== undefined) {
      const v = sshKeyViolations(patch.ssh_keys);
      if (v.length) throw violationError(v);
      this.checks.sshKeys(w.org, patch.ssh_keys);
    }

    const before = structuredClone(w);
    if (patch.name !== undefined) w.name = patch.name;
    if (patch.project_id !== undefined) w.project_id = patch.project_id === "" ? undefined : patch.project_id;
    if (patch.ssh_keys !== undefined) w.ssh_keys = patch.ssh_keys;
    if (patch.ports !== undefined) w.ports = patch.ports;
    w.sandbox_config = cfg;
    if (JSON.stringify(before) === JSON.stringify(w)) return w;
    w.updated_at = this.lc.now();
    this.store.transaction(() => {
      this.lc.saveWithEvent(w, {
        event_type: "UPDATED",
        reason: "Updated",
        message: "sandbox updated without redeploy",
      });
    });
    await this.lc.hooks.onUpdate?.(before, w);
    return w;
  }
}
