import type {
  InventoryResource,
  Workload,
  WorkloadOperation,
  WorkloadState,
  WorkloadStateSummary,
} from "../../api/index.ts";
import { costPerHour } from "../common/billing.ts";
import type { WorkloadRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { inventoryItem } from "../seed/schema.ts";
import { readyReplicas, totalReplicas } from "./lifecycle.ts";

/** Wire views of workload records. Passwords and internal fields never leave through here. */

function resourceOf(store: Store, w: WorkloadRecord): InventoryResource {
  const item = inventoryItem(store.seed, w.resource_name);
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

export function workloadOperation(store: Store, w: WorkloadRecord): WorkloadOperation {
  const op: WorkloadOperation = {
    uid: w.uid,
    type: w.type,
    name: w.name,
    image: w.image,
    cost_per_hour: costPerHour(store, w),
    resource: resourceOf(store, w),
    revision: w.revision,
    volumes: w.volumes.map((v) => ({ uid: v.uid, mount_path: v.mount_path, read_only: v.read_only })),
    state: stateSummary(w),
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
  if (w.reservation_uid) op.reservation_uid = w.reservation_uid;
  return op;
}

export function workloadFull(store: Store, w: WorkloadRecord): Workload {
  const full: Workload = {
    ...workloadOperation(store, w),
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
    const t = store.sandboxTemplates.get(w.sandbox_config.template_uid);
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
