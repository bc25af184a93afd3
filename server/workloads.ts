import {
  INVENTORY_TYPE,
  SANDBOX_PATCH_FIELDS,
  WorkloadPatch,
  nameViolation,
  portViolations,
  redeploys,
  sandboxTimeoutViolation,
  validateWorkloadCreate,
  workloadRuleViolations,
  type WorkloadCreate,
  type WorkloadType,
} from "../api/index.ts";
import { ApiError, violationError, zodError } from "./http/errors.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { WorkloadRecord, WorkloadVolume } from "./records.ts";
import { newRevision, newUid } from "./util.ts";
import { inventoryItem } from "./capacity.ts";

/**
 * Registering and updating workloads: the contract's rules (api/workload-rules.ts) plus the
 * checks that need server data (inventory, images, regions, reservations, keys, volumes,
 * sandbox templates).
 *
 * Over 400 lines because create and PATCH share these checks and are kept together so that each
 * rule is written once; attach and detach are in workload-attachments.ts.
 */

export function isLive(w: WorkloadRecord | undefined): w is WorkloadRecord {
  return w !== undefined && w.status !== "deleted";
}

export class WorkloadService {
  private readonly lc: Lifecycle;

  constructor(lc: Lifecycle) {
    this.lc = lc;
  }

  private get store() {
    return this.lc.store;
  }

  /** The org's workload or 404 WORKLOAD_NOT_FOUND (other orgs' workloads do not exist for it). */
  get(org: string, uid: string): WorkloadRecord {
    const w = this.store.workloads.getIn(org, uid);
    if (!w) throw new ApiError("WORKLOAD_NOT_FOUND", `workload ${uid} not found`);
    return w;
  }

  /** The workload unless deleted (409 WORKLOAD_INVALID_STATE). */
  getLive(org: string, uid: string, action: string): WorkloadRecord {
    const w = this.get(org, uid);
    if (w.status === "deleted")
      throw new ApiError("WORKLOAD_INVALID_STATE", `cannot ${action} workload ${uid}: its status is deleted`);
    return w;
  }

  // ---- data checks ----------------------------------------------------------------------

  private checkResource(type: WorkloadType, name: string | undefined): void {
    if (name === undefined) return;
    const item = inventoryItem(this.lc.store, name);
    if (!item)
      throw new ApiError("WORKLOAD_RESOURCE_NOT_FOUND", `resource_name ${name} is not an inventory resource`);
    const want = type === "SANDBOX" ? "sandbox" : INVENTORY_TYPE[type];
    if (item.type !== want) {
      throw new ApiError(
        "WORKLOAD_RESOURCE_TYPE_MISMATCH",
        `resource_name ${name} is a ${item.type} resource; ${type} workloads need a ${want} resource`,
      );
    }
  }

  private checkImage(type: WorkloadType, image: string): void {
    const seed = this.store.seed;
    if (type === "VM" && !seed.vm_images.some((i) => i.name === image)) {
      throw new ApiError(
        "WORKLOAD_IMAGE_NOT_FOUND",
        `image ${image} is not a known VM image (see GET /orgs/{org}/workloads/vm-images)`,
      );
    }
    if (type === "BM" && !seed.bm_images.some((i) => i.name === image)) {
      throw new ApiError(
        "WORKLOAD_BM_TARGET_NOT_FOUND",
        `image ${image} is not a known BM image (see GET /orgs/{org}/workloads/bm-images)`,
      );
    }
  }

  private checkSshKeys(org: string, keys: readonly string[] | undefined): void {
    if (!keys) return;
    const seen = new Set<string>();
    keys.forEach((k, i) => {
      if (seen.has(k)) throw new ApiError("WORKLOAD_FIELD_INVALID", `ssh_keys[${i}] repeats SSH key ${k}`);
      seen.add(k);
      if (!this.store.sshKeys.getIn(org, k))
        throw new ApiError("WORKLOAD_SSH_KEY_NOT_FOUND", `ssh_keys[${i}]: SSH key ${k} not found`);
    });
  }

  /** Volumes exist in the org, are listed once, and are not mounted by another live workload. */
  private checkVolumes(
    org: string,
    mounts: readonly { uid: string; mount_path: string }[] | undefined,
    self?: string,
  ): void {
    if (!mounts) return;
    const uids = new Set<string>();
    const paths = new Set<string>();
    mounts.forEach((m, i) => {
      if (uids.has(m.uid))
        throw new ApiError("WORKLOAD_FIELD_INVALID", `volumes[${i}] repeats volume ${m.uid}`);
      if (paths.has(m.mount_path))
        throw new ApiError(
          "WORKLOAD_FIELD_INVALID",
          `volumes[${i}].mount_path ${m.mount_path} is used by another volume`,
        );
      uids.add(m.uid);
      paths.add(m.mount_path);
      const v = this.store.volumes.getIn(org, m.uid);
      if (!v) throw new ApiError("WORKLOAD_VOLUME_NOT_FOUND", `volumes[${i}]: volume ${m.uid} not found`);
      this.checkVolumeFree(v.uid, v.workload_uid, self);
    });
  }

  checkVolumeFree(volumeUid: string, holder: string | undefined, self?: string): void {
    if (holder && holder !== self && isLive(this.store.workloads.get(holder))) {
      throw new ApiError(
        "WORKLOAD_VOLUME_IN_USE",
        `volume ${volumeUid} is attached to workload ${holder}; a volume is attached to one workload at a time`,
      );
    }
  }

  private checkRegionAndReservation(org: string, body: WorkloadCreate, self?: string): void {
    const seed = this.store.seed;
    if (body.type === "BM" && body.region) {
      const region = seed.regions.find((r) => r.uid === body.region);
      if (!region || !region.active) {
        throw new ApiError(
          "WORKLOAD_BM_REGION_NOT_FOUND",
          `region ${body.region} is not an active region (see GET /region)`,
        );
      }
    }
    if (body.reservation_uid === undefined) return;
    const r = seed.reservations.find((x) => x.uid === body.reservation_uid && x.org === org);
    if (!r) {
      if (body.type === "BM")
        throw new ApiError("WORKLOAD_BM_TARGET_NOT_FOUND", `reservation ${body.reservation_uid} not found`);
      throw new ApiError("WORKLOAD_RESERVATION_NOT_FOUND", `reservation ${body.reservation_uid} not found`);
    }
    if (r.type !== body.type)
      throw new ApiError(
        "WORKLOAD_RESERVATION_INVALID",
        `reservation ${r.uid} is for ${r.type} workloads, not ${body.type}`,
      );
    if (r.status !== "ACTIVE")
      throw new ApiError("WORKLOAD_RESERVATION_INVALID", `reservation ${r.uid} is ${r.status}, not ACTIVE`);
    if (body.type === "BM" && r.region !== body.region) {
      throw new ApiError(
        "WORKLOAD_BM_RESERVATION_REGION_MISMATCH",
        `reservation ${r.uid} is in region ${r.region}, the workload's region is ${body.region}`,
      );
    }
    if (r.resource_name !== body.resource_name) {
      throw new ApiError(
        "WORKLOAD_RESERVATION_INVALID",
        `reservation ${r.uid} is for resource ${r.resource_name}, not ${body.resource_name}`,
      );
    }
    for (const w of this.store.workloads.list(org)) {
      if (w.uid !== self && w.reservation_uid === r.uid && isLive(w)) {
        throw new ApiError(
          "WORKLOAD_RESERVATION_INVALID",
          `reservation ${r.uid} is already bound to workload ${w.uid}`,
        );
      }
    }
  }

  private sandboxTemplate(org: string, uid: string) {
    const t = this.store.sandboxTemplates.getIn(org, uid, true);
    if (!t)
      throw new ApiError(
        "WORKLOAD_SANDBOX_TEMPLATE_NOT_FOUND",
        `image ${uid} is not a sandbox template UID (see GET /orgs/{org}/sandbox-templates)`,
      );
    if (t.status !== "READY")
      throw new ApiError(
        "WORKLOAD_SANDBOX_TEMPLATE_NOT_READY",
        `sandbox template ${uid} is ${t.status}, not READY`,
      );
    return t;
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
      const t = this.sandboxTemplate(org, body.image);
      this.checkResource("SANDBOX", body.resource_name);
      resourceName ??= t.resource_name;
    } else {
      this.checkResource(body.type, body.resource_name);
      this.checkImage(body.type, body.image);
      this.checkRegionAndReservation(org, body);
    }
    this.checkSshKeys(org, body.ssh_keys);
    this.checkVolumes(org, body.volumes);

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
    if (patch.image !== undefined) this.checkImage(w.type, patch.image);
    if (patch.ssh_keys !== undefined) this.checkSshKeys(org, patch.ssh_keys);
    if (patch.volumes !== undefined) this.checkVolumes(org, patch.volumes, w.uid);

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
      if (updates.volumes) this.remount(w, oldVolumes, updates.volumes);
      this.store.workloads.put(w);
      this.lc.recordEvent(w, {
        event_type: "UPDATED",
        reason: "Updated",
        message: `updated: ${changed.sort().join(", ")}`,
      });
      if (redeploy) this.lc.redeploy(w);
    });
    return w;
  }

  /** Detaches volumes no longer listed, attaches new ones. */
  remount(w: WorkloadRecord, old: readonly WorkloadVolume[], now: readonly WorkloadVolume[]): void {
    for (const m of old) {
      if (now.some((n) => n.uid === m.uid)) continue;
      const v = this.store.volumes.get(m.uid);
      if (v && v.workload_uid === w.uid) this.lc.volumes.detachVolume(v, "detached from workload");
    }
    for (const m of now) {
      const v = this.store.volumes.get(m.uid);
      if (v) this.lc.volumes.attachVolume(w, v, m.mount_path, m.read_only);
    }
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
    if (patch.ssh_keys !== undefined) this.checkSshKeys(w.org, patch.ssh_keys);

    const before = structuredClone(w);
    if (patch.name !== undefined) w.name = patch.name;
    if (patch.project_id !== undefined) w.project_id = patch.project_id === "" ? undefined : patch.project_id;
    if (patch.ssh_keys !== undefined) w.ssh_keys = patch.ssh_keys;
    if (patch.ports !== undefined) w.ports = patch.ports;
    w.sandbox_config = cfg;
    if (JSON.stringify(before) === JSON.stringify(w)) return w;
    w.updated_at = this.lc.now();
    this.store.transaction(() => {
      this.store.workloads.put(w);
      this.lc.recordEvent(w, {
        event_type: "UPDATED",
        reason: "Updated",
        message: "sandbox updated without redeploy",
      });
    });
    await this.lc.hooks.onUpdate?.(before, w);
    return w;
  }
}
