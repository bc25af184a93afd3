import type {
  InventoryResource,
  SandboxTemplate,
  SshKey,
  Volume,
  VolumeCreated,
  VolumeState,
  Workload,
  WorkloadOperation,
  WorkloadState,
  WorkloadStateSummary,
  WorkloadTemplate,
} from "../api/index.ts";
import { readyReplicas, totalReplicas, type Lifecycle } from "./lifecycle.ts";
import type {
  SandboxTemplateRecord,
  SshKeyRecord,
  TemplateRecord,
  VolumeRecord,
  WorkloadRecord,
} from "./records.ts";
import { inventoryItem } from "./capacity.ts";
import { costPerHour, volumeCostPerHour } from "./billing.ts";

/** Wire views of stored records. Passwords and internal fields never leave through here. */

function resourceOf(lc: Lifecycle, w: WorkloadRecord): InventoryResource {
  const item = inventoryItem(lc.store, w.resource_name);
  return {
    name: w.resource_name,
    display_name: item?.display_name ?? w.resource_name,
    gpu_type: item?.gpu_type ?? null,
    gpu_count: item?.gpu_count ?? 0,
    vcpu: item?.vcpu ?? 0,
    memory: item?.memory ?? 0,
    disk_size_mib: item?.disk_size_mib ?? 0,
    network_mode: item?.network_mode ?? "unknown",
  };
}

function urlsOf(w: WorkloadRecord): { port: number; url: string }[] {
  if (w.status !== "running" && w.status !== "provisioning" && w.status !== "frozen") return [];
  if (w.type === "RENTAL")
    return w.ports.map((p) => ({ port: p.port, url: `http://${w.uid}-${p.port}.rental.cws.local` }));
  if (w.type === "SANDBOX")
    return w.ports.map((p) => ({ port: p.port, url: `http://${w.uid}-${p.port}.sandbox.cws.local` }));
  return [];
}

export function stateSummary(w: WorkloadRecord): WorkloadStateSummary {
  const s: WorkloadStateSummary = {
    status: w.status,
    message: w.message,
    urls: urlsOf(w),
    ready_replicas: readyReplicas(w),
    total_replicas: totalReplicas(w),
  };
  if (w.type === "VM" || w.type === "BM") {
    const live = w.status === "running" || w.status === "provisioning";
    s.public_ip = live ? (w.public_ip ?? null) : null;
    s.ssh_port = live ? (w.ssh_port ?? null) : null;
  }
  return s;
}

export function workloadOperation(lc: Lifecycle, w: WorkloadRecord): WorkloadOperation {
  const op: WorkloadOperation = {
    uid: w.uid,
    type: w.type,
    name: w.name,
    image: w.image,
    cost_per_hour: costPerHour(lc.store, w),
    resource: resourceOf(lc, w),
    revision: w.revision,
    volumes: w.volumes.map((v) => ({ uid: v.uid, mount_path: v.mount_path, read_only: v.read_only })),
    state: stateSummary(w),
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
  if (w.reservation_uid) op.reservation_uid = w.reservation_uid;
  return op;
}

export function workloadFull(lc: Lifecycle, w: WorkloadRecord): Workload {
  const full: Workload = {
    ...workloadOperation(lc, w),
    project_id: w.project_id ?? null,
    envs: w.envs.map((e) => ({ name: e.name, value: e.value })),
    ports: w.ports.map((p) =>
      w.type === "SANDBOX"
        ? { port: p.port, protocol: p.protocol ?? "TCP" }
        : { port: p.port, protocol: p.protocol ?? "TCP", routing: p.routing ?? "PROXIED" },
    ),
    commands: [...w.commands],
    args: [...w.args],
    registry_auth: w.registry_auth
      ? { server: w.registry_auth.server, username: w.registry_auth.username }
      : null,
    ssh_keys: [...w.ssh_keys],
    experiments: { ...w.experiments },
  };
  if (w.type === "BM") full.bm_config = { region: w.region ?? "", hostname: w.bm_config?.hostname ?? w.name };
  if (w.type === "SANDBOX" && w.sandbox_config) {
    const t = lc.store.sandboxTemplates.get(w.sandbox_config.template_uid);
    full.frozen_cost_per_hour = t?.frozen_cost_per_hour ?? 0;
    full.sandbox_config = {
      template_uid: w.sandbox_config.template_uid,
      ttl_sec: w.sandbox_config.ttl_sec,
      idle_timeout_sec: w.sandbox_config.idle_timeout_sec,
    };
    if (w.sandbox_config.parent_workload_uid)
      full.sandbox_config.parent_workload_uid = w.sandbox_config.parent_workload_uid;
  }
  return full;
}

export function workloadState(w: WorkloadRecord): WorkloadState {
  return { uid: w.uid, workload_type: w.type, ...stateSummary(w), updated_at: w.state_updated_at };
}

export function volumeView(lc: Lifecycle, v: VolumeRecord): Volume {
  const out: Volume = {
    uid: v.uid,
    name: v.name,
    size: v.size,
    resource_name: v.resource_name,
    state: { status: v.status, message: v.message, updated_at: v.state_updated_at },
    cost_per_hour: volumeCostPerHour(lc.store, v),
    pvc_name: v.pvc_name,
    created_at: v.created_at,
    updated_at: v.updated_at,
  };
  if (v.workload_uid) {
    out.workload_uid = v.workload_uid;
    out.mount_path = v.mount_path;
  }
  if (v.last_backup_at) out.last_backup_at = v.last_backup_at;
  return out;
}

/** The answer to a volume create: its UID and state. */
export function volumeCreated(v: VolumeRecord): VolumeCreated {
  return { uid: v.uid, state: { status: v.status, message: v.message, updated_at: v.state_updated_at } };
}

export function volumeState(v: VolumeRecord): VolumeState {
  return { uid: v.uid, status: v.status, message: v.message, updated_at: v.state_updated_at };
}

export function sshKeyView(k: SshKeyRecord): SshKey {
  return {
    uid: k.uid,
    name: k.name,
    public_key_raw: k.public_key_raw,
    created_at: k.created_at,
    updated_at: k.updated_at,
  };
}

/** A manifest as returned: passwords removed (they are stored, never echoed). */
export function redactManifest(m: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...m };
  for (const key of ["vm_config", "registry_auth"]) {
    const sub = out[key];
    if (sub && typeof sub === "object" && !Array.isArray(sub) && "password" in sub) {
      const { password: _p, ...rest } = sub as Record<string, unknown>;
      out[key] = rest;
    }
  }
  return out;
}

export function workloadTemplateView(t: TemplateRecord): WorkloadTemplate {
  return {
    uid: t.uid,
    name: t.name,
    description: t.description,
    type: t.type,
    manifest: redactManifest(t.manifest),
    visibility: t.visibility,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

export function sandboxTemplateView(t: SandboxTemplateRecord): SandboxTemplate {
  return {
    uid: t.uid,
    name: t.name,
    display_name: t.display_name,
    description: t.description,
    kind: t.kind,
    status: t.status,
    resource_name: t.resource_name,
    cost_per_hour: t.cost_per_hour,
    frozen_cost_per_hour: t.frozen_cost_per_hour,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}
