import type { Env, Port, RegistryAuth, WorkloadStatus, WorkloadType } from "../../api/index.ts";

/** Stored shapes. Wire views are built from these in views.ts; internal fields never leave the server. */

export interface WorkloadVolume {
  uid: string;
  mount_path: string;
  read_only: boolean;
}

export interface WorkloadRecord {
  uid: string;
  org: string;
  type: WorkloadType;
  name: string;
  image: string;
  /** Inventory resource (for SANDBOX: the template's shape unless given). */
  resource_name: string;
  region?: string;
  reservation_uid?: string;
  envs: Env[];
  ports: Port[];
  commands: string[];
  args: string[];
  /** Stored with its password; the password is never returned. */
  registry_auth?: RegistryAuth;
  ssh_keys: string[];
  volumes: WorkloadVolume[];
  /** Stored, never returned. */
  vm_config?: { password: string };
  bm_config?: { hostname?: string };
  sandbox_config?: {
    template_uid: string;
    ttl_sec: number;
    idle_timeout_sec: number;
    parent_workload_uid?: string;
  };
  project_id?: string;
  experiments: Record<string, boolean>;
  status: WorkloadStatus;
  message: string;
  revision: string;
  public_ip?: string;
  ssh_port?: number;
  /** X-Deployment-Type of the request that created it, when given. */
  deployment_type?: string;
  /** Increments on every deploy, redeploy and reboot; a provisioning timer only completes its own deploy. */
  deploy_id: number;
  provision_due_at?: number;
  provision_outcome?: "running" | "error";
  provision_message?: string;
  state_updated_at: string;
  created_at: string;
  updated_at: string;
  deleted_at?: string;
  /** Free space for extension modules (e.g. the sandbox module). */
  ext?: Record<string, unknown>;
}

export interface VolumeRecord {
  uid: string;
  org: string;
  name: string;
  size: number;
  resource_name: string;
  status: string;
  message: string;
  state_updated_at: string;
  workload_uid?: string;
  mount_path?: string;
  read_only?: boolean;
  pvc_name: string;
  last_backup_at?: string;
  resource_version: number;
  created_at: string;
  updated_at: string;
}

export interface SshKeyRecord {
  uid: string;
  org: string;
  name: string;
  public_key_raw: string;
  created_at: string;
  updated_at: string;
}

/**
 * A stored workload template (wire type WorkloadTemplate, created from a TemplateCreate body;
 * routes in server/templates/routes.ts, table store.templates). "Template" alone always means a
 * workload template on the server; sandbox templates are SandboxTemplateRecord.
 */
export interface TemplateRecord {
  uid: string;
  /** null: a platform template visible to every org. */
  org: string | null;
  name: string;
  description: string;
  type: WorkloadType;
  manifest: Record<string, unknown>;
  visibility: "PUBLIC" | "PRIVATE";
  created_at: string;
  updated_at: string;
}

export interface SandboxTemplateRecord {
  uid: string;
  /** null for FRESH (platform) templates. */
  org: string | null;
  name: string;
  display_name: string;
  description: string;
  kind: "FRESH" | "USER";
  status: "PENDING" | "READY" | "FAILED";
  resource_name: string;
  cost_per_hour: number;
  frozen_cost_per_hour: number;
  /** Internal: whether sandboxes made from it run a desktop. */
  desktop: boolean;
  /** Internal: the workload a USER template was published from. */
  source_workload_uid?: string;
  created_at: string;
  updated_at: string;
  ext?: Record<string, unknown>;
}
