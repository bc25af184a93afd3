import { AdminService } from "./admin.ts";
import { WorkloadExec } from "./exec-simulator.ts";
import type { Faults } from "./http/faults.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { SandboxTemplateService } from "./sandbox/templates.ts";
import { SshKeyService } from "./ssh-keys.ts";
import { VolumeService } from "./volumes.ts";
import { WorkloadAttachments } from "./workload-attachments.ts";
import { WorkloadChecks } from "./workload-checks.ts";
import { WorkloadLogs } from "./workload-logs.ts";
import { WorkloadTemplateService } from "./workload-templates.ts";
import { WorkloadService } from "./workloads.ts";

/**
 * The services of the server, one per resource: each owns its resource's rules and store
 * transactions. Routes reach them as `ctx.services`; the state machine they share is
 * `ctx.lifecycle`. The sandbox service is the sandbox module's (sandbox/service.ts).
 */
export interface Services {
  workloads: WorkloadService;
  attachments: WorkloadAttachments;
  logs: WorkloadLogs;
  exec: WorkloadExec;
  volumes: VolumeService;
  sshKeys: SshKeyService;
  workloadTemplates: WorkloadTemplateService;
  sandboxTemplates: SandboxTemplateService;
  admin: AdminService;
}

export function createServices(lc: Lifecycle, faults: Faults): Services {
  const checks = new WorkloadChecks(lc.store);
  return {
    workloads: new WorkloadService(lc, checks),
    attachments: new WorkloadAttachments(lc, checks),
    logs: new WorkloadLogs(lc),
    exec: new WorkloadExec(lc),
    volumes: new VolumeService(lc),
    sshKeys: new SshKeyService(lc),
    workloadTemplates: new WorkloadTemplateService(lc),
    sandboxTemplates: new SandboxTemplateService(lc),
    admin: new AdminService(lc, faults),
  };
}
