import { AdminService } from "./admin.ts";
import { WorkloadExec } from "./exec-simulator.ts";
import type { Faults } from "./http/faults.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { Cursors } from "./common/cursors.ts";
import { SshKeyService } from "./ssh-keys/service.ts";
import { SandboxTemplateService } from "./templates/sandbox-templates.ts";
import { WorkloadTemplateService } from "./templates/workload-templates.ts";
import { VolumeService } from "./volumes/service.ts";
import { WorkloadAttachments } from "./workload-attachments.ts";
import { WorkloadChecks } from "./workload-checks.ts";
import { WorkloadLogs } from "./workload-logs.ts";
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
  const cursors = new Cursors(lc.store);
  const deps = { store: lc.store, cursors, now: () => lc.now() };
  return {
    workloads: new WorkloadService(lc, checks, cursors),
    attachments: new WorkloadAttachments(lc, checks),
    logs: new WorkloadLogs(lc),
    exec: new WorkloadExec(lc),
    volumes: new VolumeService(deps, lc.volumes),
    sshKeys: new SshKeyService(deps),
    workloadTemplates: new WorkloadTemplateService(deps),
    sandboxTemplates: new SandboxTemplateService(deps),
    admin: new AdminService(lc, faults),
  };
}
